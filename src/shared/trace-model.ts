import { z } from 'zod';
import { ContextWindow } from './context-window';

/**
 * The on-disk trace format (README "Data directory"): `traces/<run_id>/trace.json` (the run's meta and
 * manifest, written last) and `traces/<run_id>/records.jsonl` (one finished span or artifact per line, in
 * the order they finished). A trace without trace.json, or whose meta says `partial`, is incomplete.
 */
export const TRACE_FORMAT_VERSION = 1;

export const TRACE_MODES = ['metadata', 'full'] as const;
export const TraceMode = z.enum(TRACE_MODES);
export type TraceMode = z.infer<typeof TraceMode>;

export const SPAN_KINDS = ['request', 'turn', 'llm_call', 'tool_call', 'rejected_request', 'budget_decision', 'retry', 'release'] as const;
export const SpanKind = z.enum(SPAN_KINDS);
export type SpanKind = z.infer<typeof SpanKind>;

export const SpanStatus = z.enum(['ok', 'error', 'cancelled']);
export type SpanStatus = z.infer<typeof SpanStatus>;

/** Attribute values stay JSON: numbers, strings, booleans, null, and arrays/objects of those (ranks, scores). */
export const AttrValue: z.ZodType<AttrValue> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(AttrValue), z.record(z.string(), AttrValue)]));
export type AttrValue = string | number | boolean | null | AttrValue[] | { [k: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export const SpanRecord = z.object({
  type: z.literal('span'),
  span_id: z.string().regex(/^[0-9a-f]{16}$/),
  parent_id: z.string().regex(/^[0-9a-f]{16}$/).nullable(),
  kind: SpanKind,
  name: z.string(),
  /** Epoch milliseconds with sub-millisecond precision (a monotonic clock anchored once per process). */
  start_ms: z.number(),
  end_ms: z.number(),
  status: SpanStatus,
  attributes: z.record(z.string(), AttrValue),
});
export type SpanRecord = z.infer<typeof SpanRecord>;

export const ARTIFACT_KINDS = ['prompt', 'model_output', 'reasoning', 'tool_payload', 'answer'] as const;
export const ArtifactRecord = z.object({
  type: z.literal('artifact'),
  artifact_id: z.string(),
  span_id: z.string().regex(/^[0-9a-f]{16}$/),
  kind: z.enum(ARTIFACT_KINDS),
  content: z.string(),
});
export type ArtifactRecord = z.infer<typeof ArtifactRecord>;
export type ArtifactKind = ArtifactRecord['kind'];

export const TraceRecord = z.discriminatedUnion('type', [SpanRecord, ArtifactRecord]);
export type TraceRecord = z.infer<typeof TraceRecord>;

/** Everything that decides what a run does: enough to tell two runs apart, or to reproduce one. */
export const RunManifest = z.object({
  app: z.object({ name: z.literal('docqa'), version: z.string(), build: z.string() }),
  prompt_bundle: z.object({
    id: z.string(),
    version: z.string(),
    hash: z.string(),
    parent: z.string().nullable(),
    language: z.enum(['zh', 'en']),
    /** The final round's template: its hash, and (only when it is borrowed: a format-1 bundle) the bundle it comes from. Absent in traces written before it existed. */
    final_hash: z.string().optional(),
    final_from: z.string().optional(),
    /** The conversation template: its hash, and (only when borrowed: a format-1 or -2 bundle) the bundle it comes from. Absent in traces written before it existed. */
    conversation_hash: z.string().optional(),
    conversation_from: z.string().optional(),
  }),
  loop_protocol_version: z.string(),
  tool_contract_version: z.string(),
  tools: z.array(z.string()),
  chat: z.object({ /** Who served the model when it is not DocQA's endpoint ("vscode-lm"); absent: the OpenAI-compatible endpoint at base_url. */ provider: z.string().optional(), base_url: z.string(), model: z.string(), thinking: z.enum(['enabled', 'disabled']), temperature: z.number(), max_output_tokens: z.number() }),
  embedding: z.object({ provider: z.string(), model: z.string().nullable(), dimensions: z.number().nullable() }),
  snapshot: z.object({ id: z.string(), completeness: z.enum(['complete', 'partial']), failed_documents: z.number() }),
  budgets: z.object({ max_context_tokens: z.number(), max_request_tokens: z.number(), finalization_reserve_tokens: z.number(), max_tool_calls: z.number() }),
  thresholds: z.object({ no_gain: z.number(), violations: z.number() }),
  /** The bound on a follow-up's conversation section (absent in traces written before it existed). */
  max_conversation_tokens: z.number().optional(),
  /** A chat model served locally: the window it is served with and how the context budget above came from it (absent otherwise, and in traces written before it existed). */
  context_window: ContextWindow.optional(),
  /** sha256 of everything above except the app build: equal hashes, same configuration. */
  config_hash: z.string(),
});
export type RunManifest = z.infer<typeof RunManifest>;

export const TraceMeta = z.object({
  formatVersion: z.literal(TRACE_FORMAT_VERSION),
  run_id: z.string(),
  /** 32 hex digits: the OpenTelemetry trace id used on export. */
  trace_id: z.string().regex(/^[0-9a-f]{32}$/),
  mode: TraceMode,
  started_at: z.string(),
  question: z.string(),
  /** A follow-up's earlier turns in its prompts: how many went in, how many were dropped for the bound, their section's tokens. */
  conversation: z.object({ turns: z.number().int(), dropped: z.number().int(), tokens: z.number().int() }).optional(),
  manifest: RunManifest,
  release: z.object({ status: z.string(), reason: z.string().nullable(), detail: z.string().nullable().optional() }),
  stop_reason: z.string().nullable(),
  counts: z.record(z.string(), z.number()),
  tokens: z.object({ prompt: z.number(), completion: z.number(), embedding: z.number(), estimated: z.object({ chat: z.boolean(), embedding: z.boolean() }).optional() }),
  /** Records written / dropped (queue full, slow or failing writer); partial when anything was lost. */
  records_written: z.number().int(),
  records_dropped: z.number().int(),
  partial: z.boolean(),
  writer_error: z.string().nullable(),
});
export type TraceMeta = z.infer<typeof TraceMeta>;
