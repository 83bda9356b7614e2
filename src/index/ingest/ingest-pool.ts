import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker, workerScript } from '../../common/worker-script';
import { type FileIdentity, type IngestOutcome, type UnchangedFile, ingestFile } from './ingest-file';
import type { IngestOptions } from '../model';

export interface WorkerRequest {
  id: number;
  path: string;
  identity: FileIdentity;
  options: IngestOptions;
  /** Content hash of a document the caller already has for this path: skip parsing when unchanged. */
  knownHash?: string;
}
export type ScanOutcome = IngestOutcome | UnchangedFile;
/** A line a library printed in a worker thread, for the host's logger. */
export interface WorkerLog {
  level: 'debug' | 'info' | 'warn' | 'error';
  text: string;
}
/** `started`: the worker has begun job `started` (its time limit runs from here). */
export type WorkerResponse = { id: number; outcome: ScanOutcome } | { id: number; error: string } | { log: WorkerLog } | { started: number };

/**
 * Runs ingestFile jobs (read, hash, parse, block) in worker threads (in-process only when a caller asks
 * for it, and then without PDFs: pdf.js runs in workers only). Reading in the workers keeps the main
 * thread (the extension host) free.
 */
export interface IngestPool {
  readonly size: number;
  run(path: string, identity: FileIdentity, signal?: AbortSignal, knownHash?: string): Promise<ScanOutcome>;
  close(): Promise<void>;
}

/**
 * The worker script: the bundled one next to this module (dist/ingest-worker.js), or ingest-worker.ts
 * from the sources. PDFs are parsed only in workers, so there always is one.
 */
export function defaultWorkerScript(): string | null {
  return workerScript(__dirname, 'ingest-worker');
}

export function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

function inProcessPool(options: IngestOptions): IngestPool {
  return {
    size: 1,
    run: (p, identity, signal, knownHash) => ingestFile(p, identity, options, { signal, knownHash }),
    close: async () => undefined,
  };
}

interface Slot {
  worker: Worker;
  /** Jobs sent and not answered yet (a job retried alone counts for all of them). */
  busy: number;
  /** Stopped or dead: whatever it still sends or emits is ignored. */
  retired: boolean;
}

/**
 * Two jobs per worker: while one waits for its file to be read, the other is parsed, and the next job is
 * already there when one finishes.
 */
const JOBS_PER_WORKER = 2;

interface Job {
  path: string;
  identity: FileIdentity;
  knownHash?: string;
  resolve: (o: ScanOutcome) => void;
  reject: (e: unknown) => void;
  /** Retried on a worker of its own: its worker died while it and another job were being parsed. */
  alone: boolean;
}

interface Pending {
  job: Job;
  slot: Slot;
  weight: number;
  /** The worker has begun it: its time limit runs from then, and it may be what killed the worker. */
  started: boolean;
  timer?: NodeJS.Timeout;
}

const parseFailure = (path: string, code: 'internal' | 'too_slow' | 'out_of_memory', message: string): ScanOutcome => ({ ok: false, failure: { path, stage: 'parse', code, message } });

/**
 * A fixed set of workers; callers queue. Each document has a time limit (options.max_document_ms, from
 * when its worker begins it) and each worker a heap limit (options.max_worker_memory_mb). A job over its
 * time fails `too_slow` and its worker is terminated and replaced; a worker that dies (out of memory, a
 * crash) fails the job that killed it and is replaced. Jobs that merely shared the worker are sent
 * again, so one hostile file fails only itself; the batch goes on.
 */
export function createIngestPool(options: IngestOptions, workerScript: string | null = defaultWorkerScript(), size = defaultPoolSize(), onLog?: (log: WorkerLog) => void): IngestPool {
  if (!workerScript || size < 1) return inProcessPool(options);
  const slots: Slot[] = [];
  const waiting: Array<() => void> = [];
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closed = false;
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

  const settle = (id: number, outcome: ScanOutcome) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    clearTimeout(p.timer);
    release(p.slot, p.weight);
    p.job.resolve(outcome);
  };

  /** Takes `slot` out of service, puts a fresh worker in its place, and hands back the jobs it held. */
  const retire = (slot: Slot): Pending[] => {
    slot.retired = true;
    const held = [...pending].filter(([, p]) => p.slot === slot);
    for (const [id, p] of held) {
      pending.delete(id);
      clearTimeout(p.timer);
    }
    const i = slots.indexOf(slot);
    if (i >= 0 && !closed) slots[i] = spawn();
    void slot.worker.terminate();
    wake();
    return held.map(([, p]) => p);
  };

  const timedOut = (slot: Slot, id: number) => {
    const p = pending.get(id);
    if (!p || slot.retired) return;
    const ms = options.max_document_ms;
    for (const other of retire(slot)) {
      if (other === p) other.job.resolve(parseFailure(p.job.path, 'too_slow', `parsing took longer than ${seconds(ms)} (the ingest.max_document_ms limit), so it was stopped: the file may be malformed or too complex; split it or raise the limit`));
      else dispatch(other.job);
    }
  };

  const died = (slot: Slot, err: (Error & { code?: string }) | null, exitCode: number | null) => {
    if (slot.retired || closed) return;
    const held = retire(slot);
    const started = held.filter((p) => p.started);
    const why =
      err?.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? parseFailure('', 'out_of_memory', `the parser ran out of memory: reading this document needed more than the ${options.max_worker_memory_mb} MB a worker may use (the ingest.max_worker_memory_mb limit)`)
        : parseFailure('', 'internal', `the parser stopped: ${err ? err.message : `worker exited with code ${exitCode}`}`);
    // Nothing had started: the worker itself is broken (e.g. its script failed to load); sending the jobs again would loop.
    const blame = started.length === 0 ? held : started;
    for (const p of held) {
      if (!blame.includes(p)) dispatch(p.job);
      else if (blame.length > 1 && !p.job.alone) dispatch({ ...p.job, alone: true });
      else if (!why.ok) p.job.resolve({ ok: false, failure: { ...why.failure, path: p.job.path } });
    }
  };

  const spawn = (): Slot => {
    const slot: Slot = { worker: startWorker(workerScript, { resourceLimits: { maxOldGenerationSizeMb: options.max_worker_memory_mb } }), busy: 0, retired: false };
    slot.worker.on('message', (msg: WorkerResponse) => {
      if (slot.retired) return;
      if ('log' in msg) return onLog?.(msg.log);
      if ('started' in msg) {
        const p = pending.get(msg.started);
        if (!p) return;
        p.started = true;
        p.timer = setTimeout(() => timedOut(slot, msg.started), options.max_document_ms);
        p.timer.unref();
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      settle(msg.id, 'outcome' in msg ? msg.outcome : parseFailure(p.job.path, 'internal', `unexpected error: ${msg.error}`));
    });
    slot.worker.on('error', (err) => died(slot, err, null));
    slot.worker.on('exit', (code) => died(slot, null, code));
    slot.worker.unref();
    return slot;
  };
  for (let i = 0; i < size; i++) slots.push(spawn());

  // An idle worker must not keep the process alive; a busy one must, or a CLI run would end mid-job.
  function release(slot: Slot, weight: number): void {
    slot.busy = Math.max(0, slot.busy - weight);
    if (slot.busy === 0) slot.worker.unref();
    wake();
  }
  function wake(): void {
    for (const w of waiting.splice(0)) w();
  }
  async function acquire(weight: number): Promise<Slot> {
    for (;;) {
      const free = slots.reduce<Slot | undefined>((best, s) => (s.busy + weight <= JOBS_PER_WORKER && (!best || s.busy < best.busy) ? s : best), undefined);
      if (free) {
        free.busy += weight;
        return free;
      }
      await new Promise<void>((r) => waiting.push(r));
    }
  }
  function dispatch(job: Job): void {
    const weight = job.alone ? JOBS_PER_WORKER : 1;
    void acquire(weight).then((slot) => {
      if (closed) return job.reject(new Error('ingestion pool closed'));
      const id = nextId++;
      pending.set(id, { job, slot, weight, started: false });
      slot.worker.ref();
      const req: WorkerRequest = { id, path: job.path, identity: job.identity, options, ...(job.knownHash !== undefined ? { knownHash: job.knownHash } : {}) };
      slot.worker.postMessage(req);
    });
  }

  return {
    size,
    async run(p, identity, signal, knownHash) {
      signal?.throwIfAborted();
      return new Promise<ScanOutcome>((resolve, reject) => dispatch({ path: p, identity, ...(knownHash !== undefined ? { knownHash } : {}), resolve, reject, alone: false }));
    },
    async close() {
      closed = true;
      for (const [, p] of pending) {
        clearTimeout(p.timer);
        p.job.reject(new Error('ingestion pool closed'));
      }
      pending.clear();
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
