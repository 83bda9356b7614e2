import { z } from 'zod';
import { EvalRecord } from './eval-record';
import { ArtifactRecord, SpanRecord, TraceMeta } from './trace-model';

/**
 * Every message between the extension host and the trace viewer's webview (dist/trace.js: traces,
 * evaluation results, evaluation comparisons), one discriminated union per direction. Both sides validate
 * on arrival and drop (and log) what does not match; nothing is posted before the webview says `ready`.
 * Requests that expect an answer carry an `id`; the answer carries it back.
 */

/** A trace as it is on disk: meta (null when trace.json was never written), flat spans, artifacts (full mode). */
export const TraceData = z.object({
  run_id: z.string(),
  meta: TraceMeta.nullable(),
  spans: z.array(SpanRecord),
  artifacts: z.array(ArtifactRecord),
  unreadable_lines: z.number().int().min(0),
});
export type TraceData = z.infer<typeof TraceData>;

/** The core's ReplayReport (src/app/replay.ts), checked again at the boundary. */
export const ReplayReport = z.object({
  run_id: z.string(),
  snapshot_id: z.string(),
  identical: z.boolean(),
  calls: z.array(
    z.object({
      tool_call_id: z.string(),
      tool: z.string(),
      input: z.unknown(),
      identical: z.boolean(),
      recorded: z.object({ payload_hash: z.string(), refs: z.array(z.string()) }),
      replayed: z.object({ payload_hash: z.string(), refs: z.array(z.string()) }),
      added_refs: z.array(z.string()),
      missing_refs: z.array(z.string()),
      reordered: z.boolean(),
      error: z.string().nullable(),
    }),
  ),
});
export type ReplayReport = z.infer<typeof ReplayReport>;

/** A saved evaluation (src/eval/eval-record.ts), as the result tab shows it. */
export const EvalView = EvalRecord;
export type EvalView = EvalRecord;

/** Two evaluations compared (src/eval/eval-diff.ts). */
export const EvalDiffView = z.object({
  a: z.string(),
  b: z.string(),
  pass_rate: z.object({ a: z.number(), b: z.number(), delta: z.number() }),
  cases: z.array(z.object({ id: z.string(), a: z.string().nullable(), b: z.string().nullable(), change: z.enum(['improved', 'regressed', 'same', 'only_a', 'only_b']) })),
  manifest_changes: z.array(z.object({ field: z.string(), a: z.unknown(), b: z.unknown() })),
});
export type EvalDiffView = z.infer<typeof EvalDiffView>;

/** `vscode.env.language` (e.g. "en", "zh-cn"): the webview picks its strings by it. */
const Language = z.string().min(1);

export const HostToTraceView = z.discriminatedUnion('type', [
  /** `otlp`: an export endpoint is configured (the action is offered only then). */
  z.object({ type: z.literal('show-trace'), language: Language, otlp: z.boolean(), trace: TraceData }),
  z.object({ type: z.literal('show-eval'), language: Language, record: EvalView }),
  z.object({ type: z.literal('show-eval-diff'), language: Language, diff: EvalDiffView }),
  z.object({ type: z.literal('replay-result'), id: z.number().int(), report: ReplayReport }),
  z.object({ type: z.literal('export-result'), id: z.number().int(), spans: z.number().int() }),
  /** A request that failed: the error's code and message (errors are values with codes). */
  z.object({ type: z.literal('request-failed'), id: z.number().int(), code: z.string(), message: z.string() }),
]);
export type HostToTraceView = z.infer<typeof HostToTraceView>;

export const TraceViewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('replay'), id: z.number().int() }),
  z.object({ type: z.literal('export-otlp'), id: z.number().int() }),
  /** Opens what the model was sent in turn `turn` (from 1) as a read-only text document. */
  z.object({ type: z.literal('show-prompt'), turn: z.number().int().min(1) }),
  z.object({ type: z.literal('copy-run-id') }),
  /** From an evaluation's result tab: open the trace of one run. */
  z.object({ type: z.literal('open-trace'), run_id: z.string() }),
  /** A citation the run kept (`doc_id#block_id`): open it at its spot, looked up in the run's snapshot. */
  z.object({ type: z.literal('open-citation'), ref: z.string().regex(/^[^#\s]+#[^#\s]+$/) }),
]);
export type TraceViewToHost = z.infer<typeof TraceViewToHost>;
