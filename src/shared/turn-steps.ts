import { z } from 'zod';
import type { AgentEvent } from './run-result';
import { BlockBrief, StepOutcome, type StepRecord, StepScope } from './step-record';

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

/** A step as a turn keeps and shows it, from the run's record of it: the blocks of an admitted result only. */
export function turnStep(r: StepRecord): TurnStep {
  return { tool_call_id: r.tool_call_id, tool: r.tool, scope: r.scope, outcome: r.outcome, blocks: r.outcome?.not_admitted ? [] : r.blocks };
}

/**
 * A turn's steps after one event of its run: a tool request opens a step, its result completes it. The
 * one reducer of steps: the conversation store and the chat view both fold a run's events with it.
 */
export function recordStep(steps: readonly TurnStep[], e: AgentEvent): TurnStep[] {
  if (e.type === 'tool_requested') return [...steps, turnStep(e)];
  if (e.type === 'tool_result') return steps.map((s) => (s.tool_call_id === e.tool_call_id ? turnStep(e) : s));
  return [...steps];
}
