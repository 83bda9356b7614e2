import { z } from 'zod';

/** The run's limits (seed §3, §9.1.5): user-configurable, these defaults otherwise. */
export const Budgets = z.object({
  max_context_tokens: z.number().int().positive().default(100_000),
  max_request_tokens: z.number().int().positive().default(400_000),
  finalization_reserve_tokens: z.number().int().min(0).default(4_000),
  max_tool_calls: z.number().int().min(0).default(8),
});
export type Budgets = z.infer<typeof Budgets>;

export type Admission =
  | { admitted: true; context_tokens: number }
  | { admitted: false; reason: 'context_budget_exceeded' | 'request_budget_exceeded'; context_tokens: number; limit: number };

/**
 * The single admission point: a tool result enters the history only if the next model call — the
 * current context plus this result plus the reserve for the final answer — fits the context budget, and
 * the request's cumulative chat tokens plus that call still fit the request budget. Nothing is ever
 * half-included: the caller appends all of the result or none of it.
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
