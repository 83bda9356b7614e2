import { payloadHash } from '../tools/payload-hash';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { runTool, summarizeCall } from '../tools/registry';
import { type QueryEmbedder, TOOL_NAMES, type ToolName } from '../tools/tool';
import type { LoadedTrace } from '../trace/trace-store';

export interface ReplayedCall {
  tool_call_id: string;
  tool: string;
  input: unknown;
  identical: boolean;
  recorded: { payload_hash: string; refs: string[] };
  replayed: { payload_hash: string; refs: string[] };
  /** Refs present in only one of the two results, and whether the shared ones moved. */
  added_refs: string[];
  missing_refs: string[];
  reordered: boolean;
  /** Set when the call could not be re-run (e.g. the query embedding endpoint is not configured): not a result change. */
  error: string | null;
}

export interface ReplayReport {
  run_id: string;
  snapshot_id: string;
  calls: ReplayedCall[];
  identical: boolean;
}

/**
 * Re-runs a trace's tool calls, in their original order, on the snapshot the run used, and compares each
 * result with the recorded one (payload hash and returned refs). Tools are read-only and deterministic
 * over one snapshot, so anything but "identical" means the snapshot or the tools changed.
 */
export async function replayToolCalls(trace: LoadedTrace, snapshot: LoadedSnapshot, embedQuery?: QueryEmbedder): Promise<ReplayReport> {
  const calls = trace.spans.filter((s) => s.kind === 'tool_call').sort((a, b) => a.start_ms - b.start_ms || (a.span_id < b.span_id ? -1 : 1));
  const out: ReplayedCall[] = [];
  // A scoped question's calls ran inside its scope (ToolContext.scope): replayed inside it too.
  const scopeIds = trace.spans.find((s) => s.kind === 'request')?.attributes.scope_doc_ids;
  const scope = Array.isArray(scopeIds) ? scopeIds.map(String) : undefined;
  for (const span of calls) {
    const a = span.attributes;
    const tool = String(a.tool);
    if (!(TOOL_NAMES as readonly string[]).includes(tool)) continue;
    const recordedRefs = Array.isArray(a.refs) ? a.refs.map(String) : [];
    // No retry here: the embedding client retries a transient failure itself (the retry policy).
    const payload = await runTool(tool as ToolName, a.input, { snapshot, embedQuery, scope });
    // The refs a step records (the blocks it returned or located), as the recorded span has them.
    const refs = summarizeCall(tool as ToolName, a.input, payload, { snapshot, questionScope: scope }).briefs.map((b) => b.ref);
    const hash = payloadHash(payload);
    const shared = refs.filter((r) => recordedRefs.includes(r));
    const sharedRecorded = recordedRefs.filter((r) => refs.includes(r));
    out.push({
      tool_call_id: String(a.tool_call_id),
      tool,
      input: a.input,
      identical: hash === a.payload_hash,
      recorded: { payload_hash: String(a.payload_hash), refs: recordedRefs },
      replayed: { payload_hash: hash, refs },
      added_refs: refs.filter((r) => !recordedRefs.includes(r)),
      missing_refs: recordedRefs.filter((r) => !refs.includes(r)),
      reordered: shared.join('\n') !== sharedRecorded.join('\n'),
      error: payload.error && a.error_code !== payload.error.code ? `${payload.error.code}: ${payload.error.message}` : null,
    });
  }
  return { run_id: trace.run_id, snapshot_id: snapshot.manifest.id, calls: out, identical: out.every((c) => c.identical) };
}
