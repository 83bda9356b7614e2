import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { DataDir } from '../common/data-dir';
import { StoreError, UsageError, errorMessage } from '../common/errors';
import { readVersioned, writeVersioned } from '../common/json-file';
import { processAlive } from '../common/process-alive';
import { isLoopback } from '../common/provider-failure';
import type { IngestPool } from '../index/ingest/ingest-pool';
import { PauseGate } from '../index/ingest/pause-gate';
import type { EgressPlan } from '../index/store/egress-consent';
import { type BuildProgress, type BuildResult, buildSnapshot } from '../index/store/build-snapshot';
import type { AppSettings, Clock, HostWords } from './settings';
import { ocrNotice } from './ocr-notice';

export const BuildPhase = z.enum(['ingest', 'embed', 'index', 'write']);
export const BuildState = z.enum(['running', 'paused', 'done', 'failed', 'cancelled']);

/** Where a build is, as a progress bar and a status bar show it. */
export const BuildStatus = z.object({
  build_id: z.string(),
  state: BuildState,
  phase: BuildPhase,
  done: z.number().int(),
  total: z.number().int(),
  bytes: z.number().int(),
  blocks: z.number().int(),
  embedding_tokens: z.number().int(),
  /** Time left in this phase at its pace so far; null until it can be told. */
  eta_ms: z.number().int().nullable(),
  started_at: z.string(),
  /** A scanned page being read by OCR now (ingest.ocr on): which file, its `index`th of `count` scanned pages. */
  ocr: z.object({ path: z.string(), index: z.number().int(), count: z.number().int(), page: z.number().int() }).nullable().optional(),
});
export type BuildStatus = z.infer<typeof BuildStatus>;

export const BuildEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('build_progress'), status: BuildStatus }),
  z.object({ type: z.literal('build_finished'), build_id: z.string(), snapshot_id: z.string(), state: z.string(), activated: z.boolean(), documents: z.number().int(), blocks: z.number().int(), failed_documents: z.number().int(), embedding_tokens: z.number().int() }),
  z.object({ type: z.literal('build_failed'), build_id: z.string(), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('build_cancelled'), build_id: z.string() }),
  /** OCR is on: what reading scanned pages costs in time, said before anything is read (ocr-notice.ts). */
  z.object({ type: z.literal('ocr_on'), build_id: z.string(), message: z.string(), max_document_ms: z.number().int().min(1) }),
  /** Another embedding model or vector size than the active snapshot's: every block is embedded again (said first, before anything is sent). */
  z.object({ type: z.literal('embedding_rebuild'), build_id: z.string(), message: z.string() }),
  /** The embedding endpoint is on this machine: what is embedded there, told instead of asked (nothing leaves the machine). */
  z.object({ type: z.literal('egress_local'), build_id: z.string(), host: z.string(), model: z.string(), sources: z.array(z.string()), files: z.number().int(), blocks: z.number().int(), tokens: z.number().int() }),
]);
export type BuildEvent = z.infer<typeof BuildEvent>;

/**
 * `build-state.json`: a build in progress (or paused) in this data directory, so that a restart — a
 * window reload, a crash — can tell and resume it. The build's durable point is the embedding cache and
 * the unchanged documents: a resumed build redoes only what was not written.
 */
export const BUILD_STATE_FORMAT_VERSION = 1;
export const BuildStateFile = z.object({
  formatVersion: z.literal(BUILD_STATE_FORMAT_VERSION),
  build_id: z.string(),
  state: z.enum(['running', 'paused']),
  started_at: z.string(),
  pid: z.number().int(),
  host: z.string(),
});
export type BuildStateFile = z.infer<typeof BuildStateFile>;

const stateFile = (dir: DataDir) => path.join(dir.root, 'build-state.json');

/** A build left behind: `interrupted` (its process is gone), `paused` by the person, or `elsewhere` (another process runs it). */
export type LeftBuild = { kind: 'interrupted' | 'paused' | 'elsewhere'; state: BuildStateFile };

export async function leftBuild(dir: DataDir): Promise<LeftBuild | null> {
  // A damaged state file only loses the "interrupted" notice; one a newer DocQA wrote is refused (a build would overwrite it).
  const s = await readVersioned(stateFile(dir), BUILD_STATE_FORMAT_VERSION, BuildStateFile).catch((err: unknown) => {
    if (err instanceof StoreError && err.code === 'store_future_version') throw err;
    return null;
  });
  if (!s) return null;
  if (s.host === os.hostname() && s.pid !== process.pid && processAlive(s.pid)) return { kind: 'elsewhere', state: s };
  return { kind: s.state === 'paused' ? 'paused' : 'interrupted', state: s };
}

export interface BuildJobOptions {
  dir: DataDir;
  settings: AppSettings;
  embeddingKey: string | undefined;
  words: HostWords;
  clock: Clock;
  pool?: IngestPool;
  /** Start paused (a build that was paused before a restart). */
  paused?: boolean;
  onEvent?: (e: BuildEvent) => void;
  confirmEgress: (plan: EgressPlan) => Promise<boolean>;
  /** The embedding endpoint is a local model server on this machine: told, not asked (EgressPlan.local). */
  localEmbedding?: boolean;
  /** Said as the build's first event when it re-embeds every block (DocQaApp.embeddingChange). */
  rebuildNote?: string | null;
}

/**
 * One snapshot build in the background: progress events with a pace-based ETA, pause and resume at a
 * document boundary (the pause is recorded, so it outlives a restart), cancellation, and the outcome in
 * `done` (the build's result, or null when cancelled). CPU work runs in the ingestion workers.
 */
export class BuildJob {
  readonly id = `b${crypto.randomBytes(4).toString('hex')}`;
  readonly done: Promise<BuildResult | null>;
  private readonly gate = new PauseGate();
  private readonly ac = new AbortController();
  private current: BuildStatus;
  private phaseStart = 0;

  constructor(private readonly o: BuildJobOptions) {
    const e = o.settings.embedding;
    if (e.provider !== 'none' && !o.embeddingKey && !isLoopback(e.base_url)) {
      const names = o.words.settings.embedding;
      throw new UsageError(`no embedding API key: set ${names.key} to your key for ${e.base_url} (model ${e.model}), or ${o.words.keywordOnly} for keyword-only search; nothing was sent`);
    }
    const started = o.clock.now();
    this.current = { build_id: this.id, state: 'running', phase: 'ingest', done: 0, total: 0, bytes: 0, blocks: 0, embedding_tokens: 0, eta_ms: null, started_at: started.toISOString() };
    if (o.paused) this.gate.pause();
    this.done = this.run();
  }

  get status(): BuildStatus {
    return { ...this.current };
  }

  pause(): void {
    if (this.current.state !== 'running') return;
    this.gate.pause();
    this.setState('paused');
  }

  resume(): void {
    if (this.current.state !== 'paused') return;
    this.gate.resume();
    this.setState('running');
  }

  cancel(): void {
    this.ac.abort();
    this.gate.resume();
  }

  private setState(state: BuildStatus['state']): void {
    this.current = { ...this.current, state };
    this.o.onEvent?.({ type: 'build_progress', status: this.status });
    if (state === 'running' || state === 'paused') void this.record(state);
  }

  private async record(state: 'running' | 'paused'): Promise<void> {
    await writeVersioned(stateFile(this.o.dir), { formatVersion: BUILD_STATE_FORMAT_VERSION, build_id: this.id, state, started_at: this.current.started_at, pid: process.pid, host: os.hostname() } satisfies BuildStateFile).catch(() => undefined);
  }

  private progress(p: BuildProgress): void {
    const now = this.o.clock.now().getTime();
    if (p.stage !== this.current.phase || this.phaseStart === 0) this.phaseStart = now;
    const elapsed = now - this.phaseStart;
    const eta = p.done > 0 && p.total > p.done && elapsed > 0 ? Math.round((elapsed / p.done) * (p.total - p.done)) : p.total > 0 && p.done >= p.total ? 0 : null;
    this.current = { ...this.current, phase: p.stage, done: p.done, total: p.total, bytes: p.bytes, blocks: p.blocks, embedding_tokens: p.embedding_tokens, eta_ms: eta, ocr: p.ocr ?? null };
    this.o.onEvent?.({ type: 'build_progress', status: this.status });
  }

  private async run(): Promise<BuildResult | null> {
    const { o } = this;
    if (o.rebuildNote) o.onEvent?.({ type: 'embedding_rebuild', build_id: this.id, message: o.rebuildNote });
    if (o.settings.ingest.ocr) o.onEvent?.({ type: 'ocr_on', build_id: this.id, message: ocrNotice(o.settings.ingest), max_document_ms: o.settings.ingest.max_document_ms });
    await this.record(this.gate.paused ? 'paused' : 'running');
    if (this.gate.paused) this.current = { ...this.current, state: 'paused' };
    try {
      const r = await buildSnapshot(o.dir, {
        ingest: o.settings.ingest,
        embedding: o.settings.embedding,
        embeddingApiKey: o.embeddingKey ?? '',
        signal: this.ac.signal,
        gate: this.gate,
        pool: o.pool,
        retention: { keep: o.settings.retention.keep, keepDays: o.settings.retention.keep_days },
        onProgress: (p) => this.progress(p),
        confirmEgress: o.confirmEgress,
        localEmbedding: o.localEmbedding,
        onLocalEgress: (plan) => o.onEvent?.({ type: 'egress_local', build_id: this.id, host: plan.host, model: plan.model, sources: plan.sources.map((s) => s.label), files: plan.files, blocks: plan.blocks, tokens: plan.tokens }),
      });
      const m = r.manifest;
      this.current = { ...this.current, state: 'done', eta_ms: 0 };
      o.onEvent?.({ type: 'build_finished', build_id: this.id, snapshot_id: m.id, state: m.state, activated: r.activated, documents: m.stats.documents, blocks: m.stats.blocks, failed_documents: m.stats.failed_documents, embedding_tokens: m.stats.embedding_tokens });
      return r;
    } catch (err) {
      if (this.ac.signal.aborted) {
        this.current = { ...this.current, state: 'cancelled' };
        o.onEvent?.({ type: 'build_cancelled', build_id: this.id });
        return null;
      }
      this.current = { ...this.current, state: 'failed' };
      o.onEvent?.({ type: 'build_failed', build_id: this.id, code: (err as { code?: string }).code ?? 'build_failed', message: errorMessage(err) });
      throw err;
    } finally {
      await fs.rm(stateFile(o.dir), { force: true }).catch(() => undefined);
    }
  }
}
