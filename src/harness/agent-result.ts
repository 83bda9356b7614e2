import { z } from 'zod';
import { ProviderFailure } from '../common/provider-failure';
import { ContextWindow } from '../common/served-window';
import { ProgressSnapshot } from './progress-snapshot';
import { BlockBrief, StepOutcome, StepScope } from '../shared/step-record';

/**
 * What one run produces and what it tells a UI while it runs: zod schemas, so the CLI's JSON, the
 * trace and the webview protocol share one definition. Types are inferred from them.
 */
export const RELEASE_STATUSES = ['SUCCESS', 'FALLBACK', 'FAILED', 'CANCELLED'] as const;
export const ReleaseStatus = z.enum(RELEASE_STATUSES);
export type ReleaseStatus = z.infer<typeof ReleaseStatus>;

export const STOP_REASONS = ['INFORMATION_SATURATED', 'BUDGET_LIMIT_REACHED', 'PROGRESS_PROTOCOL_VIOLATED'] as const;

/** A verified citation: the cited block as the tools showed it, without its text. */
export const Citation = z.object({ ref: z.string(), doc_id: z.string(), block_id: z.string(), doc_title: z.string(), source_label: z.string(), section_path: z.string() });
export type Citation = z.infer<typeof Citation>;

/**
 * A citation taken out of the answer, and why: `not_returned` — no tool returned that block in this run;
 * `snippet_only` — scan_term located it, but its full text never reached the model; `not_admitted` — it
 * was in a result the budget kept out of the context.
 */
export const RemovedCitation = z.object({ ref: z.string(), reason: z.enum(['not_returned', 'snippet_only', 'not_admitted']) });
export type RemovedCitation = z.infer<typeof RemovedCitation>;

export const Release = z.object({
  status: ReleaseStatus,
  reason: z.string().nullable(),
  /** One sentence for a person: what went wrong and what to do (null on SUCCESS). */
  detail: z.string().nullable(),
  /** A provider failure behind a FAILED run, as data. */
  failure: ProviderFailure.nullable(),
});
export type Release = z.infer<typeof Release>;

/** The run's spending against its budgets, as the ledger under an answer shows it. */
export const Ledger = z.object({
  chat_tokens: z.number().int(),
  max_request_tokens: z.number().int(),
  largest_context: z.number().int(),
  max_context_tokens: z.number().int(),
  tool_calls: z.number().int(),
  max_tool_calls: z.number().int(),
  model_calls: z.number().int(),
  retries: z.number().int(),
  embedding_tokens: z.number().int(),
  /** Some count is ours, not the provider's (it sent no usage). */
  estimated: z.boolean(),
  /** A chat model served locally: why max_context_tokens is what it is (absent otherwise). */
  context_window: ContextWindow.optional(),
});
export type Ledger = z.infer<typeof Ledger>;

export const Counts = z.object({ agent_turns: z.number().int(), tool_calls: z.number().int(), model_calls: z.number().int(), rejected_requests: z.number().int() });
export type Counts = z.infer<typeof Counts>;

export const Tokens = z.object({
  prompt: z.number().int(),
  completion: z.number().int(),
  /** Query embeddings of this run (embedding tokens are counted apart from chat tokens). */
  embedding: z.number().int(),
  /** Which counts are estimates made here because the provider reported no usage. */
  estimated: z.object({ chat: z.boolean(), embedding: z.boolean() }),
});
export type Tokens = z.infer<typeof Tokens>;

export const AgentResult = z.object({
  release: Release,
  stop_reason: z.enum(STOP_REASONS).nullable(),
  answer: z.string().nullable(),
  citations: z.array(Citation),
  removed_citations: z.array(RemovedCitation),
  counts: Counts,
  tokens: Tokens,
  ledger: Ledger,
  progress: ProgressSnapshot,
});
export type AgentResult = z.infer<typeof AgentResult>;

export { BlockBrief };

export const AgentEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('turn_started'), turn: z.number().int(), final_round: z.boolean() }),
  z.object({ type: z.literal('model_delta'), turn: z.number().int(), text: z.string() }),
  /** Text of the answer being written (inside Finish[...]), as it streams: unchecked, refs raw. */
  z.object({ type: z.literal('answer_delta'), turn: z.number().int(), text: z.string() }),
  z.object({ type: z.literal('tool_requested'), tool: z.string(), tool_call_id: z.string(), scope_key: z.string(), scope: StepScope }),
  z.object({ type: z.literal('tool_result'), tool: z.string(), tool_call_id: z.string(), outcome: StepOutcome, blocks: z.array(BlockBrief) }),
  z.object({ type: z.literal('request_rejected'), tool: z.string().nullable(), reason: z.string(), message: z.string() }),
  z.object({ type: z.literal('ledger'), ledger: Ledger }),
  /** Which refs of the answer were verified, and which were removed and why: streamed text is never a verified citation. */
  z.object({ type: z.literal('citations'), verified: z.array(Citation), removed: z.array(RemovedCitation) }),
  z.object({ type: z.literal('release'), result: AgentResult }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;
