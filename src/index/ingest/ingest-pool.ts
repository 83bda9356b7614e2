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
export type WorkerResponse = { id: number; outcome: ScanOutcome } | { id: number; error: string } | { log: WorkerLog };

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
  /** Jobs sent and not answered yet. */
  busy: number;
}

/**
 * Two jobs per worker: while one waits for its file to be read, the other is parsed, and the next job is
 * already there when one finishes.
 */
const JOBS_PER_WORKER = 2;

interface Pending {
  resolve: (o: ScanOutcome) => void;
  reject: (e: unknown) => void;
  path: string;
  slot: Slot;
}

/**
 * A fixed set of workers, one job each at a time; callers queue. A worker that dies fails only the job
 * it held (as an `internal` failure for that file) and is replaced; the batch goes on.
 */
export function createIngestPool(options: IngestOptions, workerScript: string | null = defaultWorkerScript(), size = defaultPoolSize(), onLog?: (log: WorkerLog) => void): IngestPool {
  if (!workerScript || size < 1) return inProcessPool(options);
  const slots: Slot[] = [];
  const waiting: Array<() => void> = [];
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closed = false;

  const spawn = (): Slot => {
    const slot: Slot = { worker: startWorker(workerScript), busy: 0 };
    slot.worker.on('message', (msg: WorkerResponse) => {
      if ('log' in msg) return onLog?.(msg.log);
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      release(slot);
      if ('outcome' in msg) p.resolve(msg.outcome);
      else p.resolve({ ok: false, failure: { path: p.path, stage: 'parse', code: 'internal', message: `unexpected error: ${msg.error}` } });
    });
    const fail = (why: string) => {
      for (const [id, p] of pending) {
        if (p.slot !== slot) continue;
        pending.delete(id);
        p.resolve({ ok: false, failure: { path: p.path, stage: 'parse', code: 'internal', message: `the parser stopped: ${why}` } });
      }
      const i = slots.indexOf(slot);
      if (i >= 0 && !closed) {
        slots[i] = spawn();
        release(slots[i]!);
      }
    };
    slot.worker.on('error', (err) => fail(err.message));
    slot.worker.on('exit', (code) => {
      if (!closed) fail(`worker exited with code ${code}`);
    });
    slot.worker.unref();
    return slot;
  };
  for (let i = 0; i < size; i++) slots.push(spawn());

  // An idle worker must not keep the process alive; a busy one must, or a CLI run would end mid-job.
  function release(slot: Slot): void {
    slot.busy = Math.max(0, slot.busy - 1);
    if (slot.busy === 0) slot.worker.unref();
    waiting.shift()?.();
  }
  async function acquire(): Promise<Slot> {
    for (;;) {
      const free = slots.reduce<Slot | undefined>((best, s) => (s.busy < JOBS_PER_WORKER && (!best || s.busy < best.busy) ? s : best), undefined);
      if (free) {
        free.busy++;
        return free;
      }
      await new Promise<void>((r) => waiting.push(r));
    }
  }

  return {
    size,
    async run(p, identity, signal, knownHash) {
      signal?.throwIfAborted();
      const slot = await acquire();
      signal?.throwIfAborted();
      const id = nextId++;
      return new Promise<ScanOutcome>((resolve, reject) => {
        pending.set(id, { resolve, reject, path: p, slot });
        slot.worker.ref();
        const req: WorkerRequest = { id, path: p, identity, options, ...(knownHash !== undefined ? { knownHash } : {}) };
        slot.worker.postMessage(req);
      });
    },
    async close() {
      closed = true;
      for (const [, p] of pending) p.reject(new Error('ingestion pool closed'));
      pending.clear();
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
