import { z } from 'zod';
import { ContextWindow } from './context-window';
import { ProviderFailure } from './provider-failure';
import { RELEASE_STATUSES } from './release-states';
import { type Lang, StepOutcome, StepRecord, StepScope } from './step-record';


/**
 * What one run produces and what it tells a UI while it runs: zod schemas, so the CLI's JSON, the
 * trace and the webview protocol share one definition. Types are inferred from them.
 */
/** The release states: each described once, with what every host shows of it, in release-states.ts. */
export const ReleaseStatus = z.enum(RELEASE_STATUSES);
export type ReleaseStatus = z.infer<typeof ReleaseStatus>;

/** Why the information-gain rules stopped a run's searching (information-gain seed §8): declared here only. */
export const STOP_REASONS = ['INFORMATION_SATURATED', 'BUDGET_LIMIT_REACHED', 'PROGRESS_PROTOCOL_VIOLATED'] as const;
export const StopReason = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReason>;

const STOP_WORDS: Record<StopReason, Record<Lang, string>> = {
  INFORMATION_SATURATED: { en: 'further searches added nothing new', zh: '继续检索不再带来新信息' },
  BUDGET_LIMIT_REACHED: { en: 'the run reached its budget', zh: '本次运行达到了预算上限' },
  PROGRESS_PROTOCOL_VIOLATED: { en: 'the model repeatedly broke the protocol', zh: '模型连续违反协议' },
};

/** A stop reason in words (an unknown one, from a newer record, as it is). */
export function stopWords(reason: string | null, lang: Lang): string | null {
  return reason ? (STOP_WORDS[reason as StopReason]?.[lang] ?? reason) : null;
}

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

/**
 * Verified progress (information-gain seed §10): what the tools really returned in this run, projected
 * from the run's own records — never from the model's words. A fallback answer is made of this and
 * nothing else; an error payload is not progress, and a run with no fact fails closed.
 */
export const ProgressSource = z.object({ ref: z.string(), doc_title: z.string(), section_path: z.string() });
export const ProgressFact = z.object({ tool_call_id: z.string(), scope: StepScope, outcome: StepOutcome });
export const Limitation = z.object({
  kind: z.enum(['not_admitted', 'tool_error', 'tool_unavailable', 'partial_collection']),
  tool_call_id: z.string().nullable(),
  scope: StepScope.nullable(),
  outcome: StepOutcome.nullable(),
  /** partial_collection: the documents that could not be indexed. */
  documents: z.array(z.string()),
});
export const ProgressSnapshot = z.object({
  stop_reason: z.string().nullable(),
  /** Blocks whose full text reached the model (search_blocks, list_blocks), in first-seen order. */
  sources: z.array(ProgressSource),
  /** Each admitted tool result, empty ones included: "scanned 42 documents for X: 0 hits" is a fact. */
  facts: z.array(ProgressFact),
  /** The canonical scopes that ran (tool + normalised input). */
  scopes_checked: z.array(z.string()),
  limitations: z.array(Limitation),
});
export type ProgressSnapshot = z.infer<typeof ProgressSnapshot>;
export type ProgressFact = z.infer<typeof ProgressFact>;
export type Limitation = z.infer<typeof Limitation>;

export const AgentResult = z.object({
  release: Release,
  stop_reason: StopReason.nullable(),
  answer: z.string().nullable(),
  citations: z.array(Citation),
  removed_citations: z.array(RemovedCitation),
  counts: Counts,
  tokens: Tokens,
  ledger: Ledger,
  progress: ProgressSnapshot,
});
export type AgentResult = z.infer<typeof AgentResult>;


export const AgentEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('turn_started'), turn: z.number().int(), final_round: z.boolean() }),
  z.object({ type: z.literal('model_delta'), turn: z.number().int(), text: z.string() }),
  /** Text of the answer being written (inside Finish[...]), as it streams: unchecked, refs raw. */
  z.object({ type: z.literal('answer_delta'), turn: z.number().int(), text: z.string() }),
  /** A tool call's step, as recorded when it is asked for (no outcome yet) and when it has ended. */
  StepRecord.extend({ type: z.literal('tool_requested') }),
  StepRecord.extend({ type: z.literal('tool_result'), outcome: StepRecord.shape.outcome.unwrap() }),
  z.object({ type: z.literal('request_rejected'), tool: z.string().nullable(), reason: z.string(), message: z.string() }),
  z.object({ type: z.literal('ledger'), ledger: Ledger }),
  /** Which refs of the answer were verified, and which were removed and why: streamed text is never a verified citation. */
  z.object({ type: z.literal('citations'), verified: z.array(Citation), removed: z.array(RemovedCitation) }),
  z.object({ type: z.literal('release'), result: AgentResult }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;

/** The event a step record is told as: requested while it has no outcome, a result once it has one. */
export function stepEvent(step: StepRecord): Extract<AgentEvent, { type: 'tool_requested' | 'tool_result' }> {
  return step.outcome ? { type: 'tool_result', ...step, outcome: step.outcome } : { type: 'tool_requested', ...step };
}
