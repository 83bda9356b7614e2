import { z } from 'zod';
import type { AgentEvent } from './run-result';
import { BlockBrief, StepOutcome, StepScope } from './step-record';

/** One tool call of a turn, as the step list shows it and a conversation file keeps it: what it looked at and what came back. */
export const TurnStep = z.object({
  tool_call_id: z.string(),
  tool: z.string(),
  scope: StepScope,
  /** null while the call runs (or when the run ended before its result). */
  outcome: StepOutcome.nullable(),
  blocks: z.array(BlockBrief),
});
export type TurnStep = z.infer<typeof TurnStep>;

/**
 * A turn's steps after one event of its run: a tool request opens a step, its result completes it. The
 * one reducer of steps: the conversation store and the chat view both fold a run's events with it.
 */
export function recordStep(steps: readonly TurnStep[], e: AgentEvent): TurnStep[] {
  if (e.type === 'tool_requested') return [...steps, { tool_call_id: e.tool_call_id, tool: e.tool, scope: e.scope, outcome: null, blocks: [] }];
  if (e.type === 'tool_result') return steps.map((s) => (s.tool_call_id === e.tool_call_id ? { ...s, outcome: e.outcome, blocks: e.blocks } : s));
  return [...steps];
}
