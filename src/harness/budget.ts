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
