import { existsSync } from 'node:fs';
import type { DataDir } from '../common/data-dir';
import { DocQaError } from '../common/errors';
import type { Redactor } from '../common/redact';
import type { SnapshotLru } from '../index/store/snapshot-lru';
import { openSnapshotHandle } from '../tools/snapshot-handle';
import { exportOtlp } from '../trace/otlp-export';
import { type LoadedTrace, type SpanNode, readTrace, spanTree } from '../trace/trace-store';
import { queryEmbedding } from './query-embedding';
import { type ReplayReport, replayToolCalls } from './replay';
import type { AppSettings, HostWords, KeyProvider } from './settings';

export interface TraceView {
  run_id: string;
  meta: LoadedTrace['meta'];
  unreadable_lines: number;
  spans: SpanNode[];
}

export async function showTrace(dir: DataDir, runId: string): Promise<TraceView> {
  const t = await readTrace(dir, runId);
  return { run_id: t.run_id, meta: t.meta, unreadable_lines: t.unreadable_lines, spans: spanTree(t.spans) };
}

/** Exactly what the model was sent in turn `turn` (from 1): needs a full trace. */
export async function promptOfTurn(dir: DataDir, runId: string, turn: number, traceFlagHint: string): Promise<Array<{ role: string; content: string }>> {
  const t = await readTrace(dir, runId);
  if (t.meta?.mode !== 'full') throw new DocQaError('trace_mode', `run ${runId} was traced in ${t.meta?.mode ?? 'an unknown'} mode, which keeps no prompts; ask again with ${traceFlagHint}`);
  const turns = t.spans.filter((s) => s.kind === 'turn');
  const span = turns.find((s) => s.attributes.turn === turn);
  if (!span) throw new DocQaError('invalid_argument', `run ${runId} has turns 1–${turns.length}, not ${turn}`);
  const call = t.spans.filter((s) => s.kind === 'llm_call' && s.parent_id === span.span_id).sort((a, b) => a.start_ms - b.start_ms)[0];
  const id = ((call?.attributes.artifacts as string[] | undefined) ?? []).find((a) => t.artifacts.get(a)?.kind === 'prompt');
  const artifact = id ? t.artifacts.get(id) : undefined;
  if (!artifact) throw new DocQaError('trace_incomplete', `the prompt of turn ${turn} is missing from the trace of ${runId}${t.meta?.partial ? ' (the trace is partial)' : ''}`);
  return JSON.parse(artifact.content) as Array<{ role: string; content: string }>;
}

/**
 * Re-runs a trace's tool calls on the snapshot it used (pinned while it runs). A call that needs the
 * query embedding and cannot get it is reported as not re-run, not as a changed result.
 */
export async function replayTrace(ctx: { dir: DataDir; lru: SnapshotLru; settings: AppSettings; keys: KeyProvider; words: HostWords }, runId: string): Promise<ReplayReport> {
  const t = await readTrace(ctx.dir, runId);
  const snapshotId = t.meta?.manifest.snapshot.id ?? (t.spans.find((s) => s.kind === 'request')?.attributes.snapshot_id as string | undefined);
  if (!snapshotId) throw new DocQaError('trace_incomplete', `the trace of ${runId} does not say which snapshot it used`);
  if (!existsSync(ctx.dir.snapshotDir(snapshotId))) {
    throw new DocQaError('snapshot_not_found', `run ${runId} used snapshot ${snapshotId}, which has been deleted (by retention or by hand); its tool calls cannot be replayed`);
  }
  const handle = await openSnapshotHandle(ctx.dir, ctx.lru, snapshotId);
  if (!handle) throw new DocQaError('snapshot_not_found', `snapshot ${snapshotId} cannot be opened`);
  try {
    return await replayToolCalls(t, handle.snapshot, queryEmbedding(handle.snapshot, ctx.settings, await ctx.keys.embedding(), ctx.words, false));
  } finally {
    await handle.release();
  }
}

export async function exportTrace(dir: DataDir, runId: string, url: string, appVersion: string, redactor: Redactor): Promise<{ spans: number }> {
  return exportOtlp(await readTrace(dir, runId), url, appVersion, redactor);
}
