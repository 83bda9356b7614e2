import { z } from 'zod';

/** The run's limits (seed §3, §9.1.5): user-configurable, these defaults otherwise. */
export const Budgets = z.object({
  max_context_tokens: z.number().int().positive().default(100_000),
  max_request_tokens: z.number().int().positive().default(400_000),
  finalization_reserve_tokens: z.number().int().min(0).default(4_000),
  max_tool_calls: z.number().int().min(0).default(8),
});
export type Budgets = z.infer<typeof Budgets>;

/**
 * Where the run stands before a model call: `used` is every chat token the request has spent so far
 * (prompt and completion of every attempt, retries included, the provider's counts where it sent them),
 * `context` the estimated prompt of the next call.
 */
export interface Spend {
  used: number;
  context: number;
}

export type CallDecision =
  /** An ordinary turn, tools offered. */
  | { kind: 'turn'; max_output_tokens: number }
  /** The request budget cannot pay another ordinary turn: one last call without tools. */
  | { kind: 'final_round' }
  | { kind: 'stop'; reason: 'context_budget_exceeded' | 'request_budget_exceeded' };

/**
 * Before an ordinary turn. The call must leave room for the reserve in both budgets:
 * context + reserve ≤ max_context, and used + context + reserve ≤ max_request (equality fits). When only
 * the request budget is short the run goes to its final round; a context that cannot hold the reserve
 * stops the run. The call's own output is capped so the run never passes max_request.
 */
export function decideTurn(b: Budgets, s: Spend): CallDecision {
  if (s.context + b.finalization_reserve_tokens > b.max_context_tokens) return { kind: 'stop', reason: 'context_budget_exceeded' };
  if (s.used + s.context + b.finalization_reserve_tokens > b.max_request_tokens) return { kind: 'final_round' };
  return { kind: 'turn', max_output_tokens: b.max_request_tokens - s.used - s.context };
}

/**
 * Before the final round (its own, tool-free prompt as `context`). The reserve is what this call may
 * spend: its prompt must fit what is left of the request budget with at least one token for the answer
 * (used + context < max_request), and its output is capped at the rest, so even the last call cannot push
 * the request past its budget. In the context budget it needs room for the reserve like any call.
 */
export function decideFinal(b: Budgets, s: Spend): { kind: 'final_round'; max_output_tokens: number } | { kind: 'stop'; reason: 'context_budget_exceeded' | 'request_budget_exceeded' } {
  if (s.context + b.finalization_reserve_tokens > b.max_context_tokens) return { kind: 'stop', reason: 'context_budget_exceeded' };
  const left = b.max_request_tokens - s.used - s.context;
  if (left < 1) return { kind: 'stop', reason: 'request_budget_exceeded' };
  return { kind: 'final_round', max_output_tokens: left };
}

export type Admission =
  | { admitted: true; context_tokens: number }
  | { admitted: false; reason: 'context_budget_exceeded' | 'request_budget_exceeded'; context_tokens: number; limit: number };

/**
 * The single admission point: a tool result enters the history only if the next model call — the
 * current context plus this result — still leaves room for the reserve in both budgets, with `used`
 * counting the turn that asked for the result (so an admitted result always leaves an ordinary next
 * turn). Nothing is ever half-included: the caller appends all of the result or none of it.
 */
export function admit(budgets: Budgets, current: { context_tokens: number; used_request_tokens: number }, resultTokens: number): Admission {
  const next = current.context_tokens + resultTokens;
  if (next + budgets.finalization_reserve_tokens > budgets.max_context_tokens) {
    return { admitted: false, reason: 'context_budget_exceeded', context_tokens: next, limit: budgets.max_context_tokens };
  }
  if (current.used_request_tokens + next + budgets.finalization_reserve_tokens > budgets.max_request_tokens) {
    return { admitted: false, reason: 'request_budget_exceeded', context_tokens: next, limit: budgets.max_request_tokens };
  }
  return { admitted: true, context_tokens: next };
}

/** Whether a failed model call may be tried again: the retry's output cap, or why the budget refuses it, in words. */
export type RetryRoom = { kind: 'retry'; max_output_tokens: number } | { kind: 'refused'; reason: 'context_budget_exceeded' | 'request_budget_exceeded'; words: string };

/**
 * The room for a retry of the call just failed (quality seed §1.3: a transient failure is retried once,
 * and retries have no budget of their own). `used` includes what the failed attempt cost — nothing for a
 * refusal such as a 429, its prompt and what streamed for a cut stream — so the retry is asked exactly
 * what the call itself was asked: an ordinary turn must still leave the reserve, the final round only
 * needs its prompt and one token. The refusal says which budget and by how much.
 */
export function retryRoom(b: Budgets, s: Spend, finalRound: boolean): RetryRoom {
  const d = finalRound ? decideFinal(b, s) : decideTurn(b, s);
  if (d.kind === 'turn' || (finalRound && d.kind === 'final_round')) return { kind: 'retry', max_output_tokens: (d as { max_output_tokens: number }).max_output_tokens };
  const left = Math.max(0, b.max_request_tokens - s.used);
  const tokens = (n: number) => `${n} token${n === 1 ? '' : 's'}`;
  if (d.kind === 'stop' && d.reason === 'context_budget_exceeded') {
    return { kind: 'refused', reason: 'context_budget_exceeded', words: `the call's prompt (${tokens(s.context)}) and the reserve for the answer (${tokens(b.finalization_reserve_tokens)}) do not fit the context budget (max_context_tokens ${b.max_context_tokens})` };
  }
  const needs = finalRound ? `the call's prompt alone is ${tokens(s.context)}` : `another turn needs its prompt (${tokens(s.context)}) and the reserve for the final answer (${tokens(b.finalization_reserve_tokens)})`;
  return { kind: 'refused', reason: 'request_budget_exceeded', words: `after this attempt the request budget (max_request_tokens ${b.max_request_tokens}) has ${tokens(left)} left, and ${needs}` };
}
