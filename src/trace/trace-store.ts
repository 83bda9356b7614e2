import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DataDir } from '../common/data-dir';
import { DocQaError, errorMessage } from '../common/errors';
import { readVersioned } from '../common/json-file';
import { type ArtifactRecord, type SpanRecord, TRACE_FORMAT_VERSION, TraceMeta, TraceRecord } from '../shared/trace-model';
import { META_FILE, RECORDS_FILE } from './trace-writer';

// The tree is pure (no Node APIs) so that the trace viewer's webview builds the same tree.
export { type SpanNode, spanTree } from '../shared/span-tree';

/** `<prefix><UTC yyyymmddThhmmssmmm>Z-<6 hex>`: sortable by time, unique without coordination. */
export function stampedId(prefix: string, at = new Date()): string {
  return `${prefix}${at.toISOString().replace(/[-:.]/g, '')}-${crypto.randomBytes(3).toString('hex')}`;
}

/** A run id, e.g. `r20261130T113221042Z-3f9a1c`. */
export const newRunId = (at = new Date()): string => stampedId('r', at);

const RUN_ID = /^r\d{8}T\d{9}Z-[0-9a-f]{6}$/;

export const isRunId = (name: string): boolean => RUN_ID.test(name);

export interface LoadedTrace {
  run_id: string;
  /** null when the run's trace.json was never written (a crash, or a writer that failed). */
  meta: TraceMeta | null;
  spans: SpanRecord[];
  artifacts: Map<string, ArtifactRecord>;
  /** Lines that could not be read (a torn last line after a crash): reported, never fatal. */
  unreadable_lines: number;
}

export async function readTrace(dir: DataDir, runId: string): Promise<LoadedTrace> {
  if (!RUN_ID.test(runId)) throw new DocQaError('invalid_argument', `"${runId}" is not a run id (they look like r20261130T113221042Z-3f9a1c; see \`docqa trace list\`)`);
  const folder = dir.traceDir(runId);
  const meta = await readVersioned(path.join(folder, META_FILE), TRACE_FORMAT_VERSION, TraceMeta);
  let raw: string | null = null;
  try {
    raw = await fs.readFile(path.join(folder, RECORDS_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new DocQaError('store_io', `cannot read the trace of ${runId}: ${errorMessage(err)}`);
  }
  // A run killed between creating its folder and its first record leaves the folder alone: `trace list`
  // shows it, so it reads as an incomplete trace with nothing in it, not as one that does not exist.
  if (!meta && raw === null && !(await isDirectory(folder))) throw new DocQaError('trace_not_found', `no trace for run ${runId} (see \`docqa trace list\`)`);
  const spans: SpanRecord[] = [];
  const artifacts = new Map<string, ArtifactRecord>();
  let unreadable = 0;
  for (const line of (raw ?? '').split('\n')) {
    if (!line) continue;
    let parsed;
    try {
      parsed = TraceRecord.safeParse(JSON.parse(line));
    } catch {
      unreadable++;
      continue;
    }
    if (!parsed.success) unreadable++;
    else if (parsed.data.type === 'span') spans.push(parsed.data);
    else artifacts.set(parsed.data.artifact_id, parsed.data);
  }
  return { run_id: runId, meta, spans, artifacts, unreadable_lines: unreadable };
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

export interface TraceSummary {
  run_id: string;
  started_at: string | null;
  question: string | null;
  status: string | null;
  mode: string | null;
  partial: boolean;
  /** Chat tokens of the run (prompt and completion), null when trace.json was never written. */
  tokens: { prompt: number; completion: number } | null;
}

/** Every trace in the data directory, newest first. */
export async function listTraces(dir: DataDir): Promise<TraceSummary[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir.tracesDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw new DocQaError('store_io', `cannot list traces: ${errorMessage(err)}`);
  }
  const out: TraceSummary[] = [];
  for (const name of names.filter((n) => RUN_ID.test(n))) {
    let meta: TraceMeta | null;
    try {
      meta = await readVersioned(path.join(dir.traceDir(name), META_FILE), TRACE_FORMAT_VERSION, TraceMeta);
    } catch {
      meta = null;
    }
    out.push({ run_id: name, started_at: meta?.started_at ?? null, question: meta?.question ?? null, status: meta?.release.status ?? null, mode: meta?.mode ?? null, partial: meta ? meta.partial : true, tokens: meta ? { prompt: meta.tokens.prompt, completion: meta.tokens.completion } : null });
  }
  // Run ids start with their UTC start time: sorting them sorts by time, with the random tail as tie-break.
  return out.sort((a, b) => (a.run_id < b.run_id ? 1 : a.run_id > b.run_id ? -1 : 0));
}

/**
 * Keeps the newest `keep` traces and deletes older ones (run ids sort by start time). Housekeeping only:
 * a trace that cannot be deleted is left for next time, never an error for the run that triggered it.
 */
export async function pruneTraces(dir: DataDir, keep: number): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir.tracesDir)).filter((n) => RUN_ID.test(n)).sort();
  } catch {
    return [];
  }
  const old = names.slice(0, Math.max(0, names.length - keep));
  const deleted: string[] = [];
  for (const n of old) {
    try {
      await fs.rm(dir.traceDir(n), { recursive: true, force: true });
      deleted.push(n);
    } catch {
      // left for the next prune
    }
  }
  return deleted;
}
