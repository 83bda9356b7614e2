import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { shareTokenizerTables } from '../../common/tokenizer';
import { startWorker, workerScript } from '../../common/worker-script';
import { type FileIdentity, type IngestOutcome, type UnchangedFile, ingestFile } from './ingest-file';
import type { IngestOptions } from '../model';
import { type SerializedScan, serializedOf, serializedScan } from './serialized-document';

/** What a worker starts with (its workerData): the pool's options, the same for every job. */
export interface WorkerSetup {
  options: IngestOptions;
  /** The tokenizer's tables, shared by every thread (shareTokenizerTables); null when run from source. */
  tokenizerTables?: SharedArrayBuffer | null;
}
export interface WorkerRequest {
  id: number;
  path: string;
  identity: FileIdentity;
  /** Content hash of a document the caller already has for this path: skip parsing when unchanged. */
  knownHash?: string;
  /** Answer with the document serialised (SerializedScan), not as objects. */
  serialize?: true;
}
export type ScanOutcome = IngestOutcome | UnchangedFile;
/** A serialised document's buffer, given back to the worker that wrote it once the host has written it out. */
export interface WorkerRecycle {
  recycle: ArrayBuffer;
}
/** A scanned page's OCR begins: the `index`th of `count` pages OCR reads in the document, page `page` of it. */
export interface OcrPage {
  index: number;
  count: number;
  page: number;
}
/** A line a library printed in a worker thread, for the host's logger. */
export interface WorkerLog {
  level: 'debug' | 'info' | 'warn' | 'error';
  text: string;
}
/**
 * `ready`: the worker has started (once). `started`: the worker has begun job `started` while another
 * of its jobs was still running (a job begun with nothing else running begins when it arrives or when
 * the job ahead of it ends, which the pool sees for itself: a message per job would cost worker time,
 * which is what a batch of tiny files waits for).
 */
export type WorkerResponse =
  | { id: number; outcome: ScanOutcome | SerializedScan }
  | { id: number; error: string }
  | { log: WorkerLog }
  | { started: number }
  /** Job `id` begins the OCR of a scanned page (ingest.ocr on): progress, a page at a time. */
  | { ocr: OcrPage & { id: number } }
  | { ready: true }
  /** The worker's OCR engine ran out of memory and is spent: replace the worker once its jobs are answered. */
  | { retire: true }
  /** The worker is starting pdf.js for its first PDF (`warming: true`) or has (`false`): see WARM_UP_LIMIT_MS. */
  | { warming: boolean };

/**
 * Runs ingestFile jobs (read, hash, parse, block) in worker threads (in-process only when a caller asks
 * for it, and then without PDFs: pdf.js runs in workers only). Reading in the workers keeps the main
 * thread (the extension host) free.
 */
export interface IngestPool {
  /** Workers it may run at once. */
  readonly size: number;
  /** Workers started so far (they start as jobs arrive: at most `size`, no more than the work needed). */
  readonly started: number;
  run(path: string, identity: FileIdentity, signal?: AbortSignal, knownHash?: string, onOcrPage?: (p: OcrPage) => void): Promise<ScanOutcome>;
  /** As run, the document serialised where it was parsed (its bytes transferred, not its objects copied). */
  runSerialized(path: string, identity: FileIdentity, signal?: AbortSignal, knownHash?: string, onOcrPage?: (p: OcrPage) => void): Promise<SerializedScan>;
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
  const run: IngestPool['run'] = (p, identity, signal, knownHash, onOcrPage) => ingestFile(p, identity, options, { signal, knownHash, ...(onOcrPage ? { onOcrPage } : {}) });
  return {
    size: 1,
    started: 0,
    run,
    runSerialized: async (...args) => serializedScan(await run(...args)),
    close: async () => undefined,
  };
}

interface Slot {
  worker: Worker;
  /** Jobs sent and not answered yet (a job retried alone counts for all of them). */
  busy: number;
  /** Stopped or dead: whatever it still sends or emits is ignored. */
  retired: boolean;
  /** Its script has loaded and it takes jobs: no document's time limit runs before. */
  ready: boolean;
  /** Starting pdf.js for its first PDF: the documents' time limits wait, the warm-up has its own. */
  warming: NodeJS.Timeout | null;
  /** Asked to be replaced (its OCR is spent): no new jobs; replaced when its last one is answered. */
  retiring: boolean;
}

/**
 * How long a fresh worker may take to start pdf.js (import, and one tiny document through it) before its
 * first PDF. That start-up is the worker's, not the document's: charged to the document, it made
 * 689-byte files fail as too slow at a 1 s limit (1.4 to 3.4 s on 2 busy cores). A start-up that
 * takes longer than this (or than the document limit, if larger) is a stuck worker, stopped like a slow document.
 */
const WARM_UP_LIMIT_MS = 60_000;

/**
 * Young generation of an ingestion worker (MB). V8's default grows to 32 MB of semi-spaces per worker,
 * resident once touched; with two workers that was the top of a 100k-block build's memory (peak 356–359
 * MB against 320–331 MB with 16, and no slower: ingestion 5.5–6.4 s against 5.6–6.7 s, idle machine).
 */
export const INGEST_WORKER_YOUNG_MB = 16;

/**
 * Two jobs per worker: while one waits for its file to be read, the other is parsed, and the next job is
 * already there when one finishes.
 */
const JOBS_PER_WORKER = 2;

interface Job {
  path: string;
  identity: FileIdentity;
  knownHash?: string;
  /** Asked for by runSerialized: the worker answers with a SerializedScan. */
  serialize: boolean;
  resolve: (o: ScanOutcome | SerializedScan) => void;
  reject: (e: unknown) => void;
  /** Retried on a worker of its own: its worker died while it and another job were being parsed. */
  alone: boolean;
  onOcrPage?: (p: OcrPage) => void;
}

interface Pending {
  job: Job;
  slot: Slot;
  weight: number;
  /** The worker has begun it: its time limit runs from then, and it may be what killed the worker. */
  begun: boolean;
  timer?: NodeJS.Timeout;
}

const parseFailure = (path: string, code: 'internal' | 'too_slow' | 'out_of_memory', message: string) => ({ ok: false, failure: { path, stage: 'parse', code, message } }) as const;

/**
 * Up to `size` workers, started as the work needs them (one file starts one worker: a one-book build
 * paid for starting every worker of the pool); callers queue. Each document has a time limit
 * (options.max_document_ms, from when its worker begins it) and each worker a heap limit (options.max_worker_memory_mb). A job over its
 * time fails `too_slow` and its worker is terminated and replaced; a worker that dies (out of memory, a
 * crash) fails the job that killed it and is replaced. Jobs that merely shared the worker are sent
 * again, so one hostile file fails only itself; the batch goes on. Terminating a worker at any moment is
 * safe for the host only because no worker ever holds a zlib handle (see `preparePdfThread` in
 * ingest-worker.ts): a thread torn down between a zlib handle's creation and its init aborts the whole
 * process (node_zlib.cc "close before init"), which in VS Code is the extension host.
 */
export function createIngestPool(options: IngestOptions, workerScript: string | null = defaultWorkerScript(), size = defaultPoolSize(), onLog?: (log: WorkerLog) => void): IngestPool {
  if (!workerScript || size < 1) return inProcessPool(options);
  const slots: Slot[] = [];
  /**
   * Jobs not sent yet, first in first out (`head`: the first not taken). One queue the pool drains as
   * workers free up: a promise per waiting job, all woken at each release, cost 1,000 tiny files about
   * a million wake-ups and made the pool 1.8× slower than tinypool.
   */
  const queue: Job[] = [];
  let head = 0;
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closed = false;
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

  /** The time limit of job `id` runs from now (again, after a warm-up), unless its worker is warming up. */
  const arm = (id: number, p: Pending) => {
    clearTimeout(p.timer);
    if (p.slot.warming) return;
    p.timer = setTimeout(() => timedOut(p.slot, id), options.max_document_ms);
    p.timer.unref();
  };

  /** Job `id` has begun on its worker: its time limit runs from now. */
  const begin = (id: number) => {
    const p = pending.get(id);
    if (!p || p.begun) return;
    p.begun = true;
    arm(id, p);
  };

  /** Jobs begun on `slot`, in the order they were sent. */
  const begunOn = (slot: Slot) => [...pending].filter(([, p]) => p.slot === slot && p.begun);

  /** The worker starts pdf.js: its documents' clocks stop, the warm-up's runs; and the reverse when done. */
  const warming = (slot: Slot, on: boolean) => {
    if (on && !slot.warming) {
      for (const [, p] of begunOn(slot)) clearTimeout(p.timer);
      slot.warming = setTimeout(() => {
        const first = begunOn(slot)[0];
        if (first) timedOut(slot, first[0]);
      }, Math.max(WARM_UP_LIMIT_MS, options.max_document_ms));
      slot.warming.unref();
    } else if (!on && slot.warming) {
      clearTimeout(slot.warming);
      slot.warming = null;
      for (const [id, p] of begunOn(slot)) arm(id, p);
    }
  };

  const settle = (id: number, outcome: ScanOutcome | SerializedScan) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    clearTimeout(p.timer);
    // The job behind it on that worker, if not begun already, begins now.
    for (const [other, q] of pending) if (q.slot === p.slot && !q.begun) begin(other);
    release(p.slot, p.weight);
    p.job.resolve(outcome);
  };

  /** Takes `slot` out of service, puts a fresh worker in its place, and hands back the jobs it held. */
  const retire = (slot: Slot): Pending[] => {
    slot.retired = true;
    if (slot.warming) clearTimeout(slot.warming);
    const held = [...pending].filter(([, p]) => p.slot === slot);
    for (const [id, p] of held) {
      pending.delete(id);
      clearTimeout(p.timer);
    }
    const i = slots.indexOf(slot);
    if (i >= 0 && !closed) slots[i] = spawn();
    void slot.worker.terminate();
    return held.map(([, p]) => p);
  };

  const timedOut = (slot: Slot, id: number) => {
    const p = pending.get(id);
    if (!p || slot.retired) return;
    const ms = options.max_document_ms;
    for (const other of retire(slot)) {
      if (other === p) other.job.resolve(parseFailure(p.job.path, 'too_slow', `parsing took longer than ${seconds(ms)} (the ingest.max_document_ms limit), so it was stopped: the file may be malformed or too complex; split it or raise the limit`));
      else enqueue(other.job);
    }
    pump();
  };

  const died = (slot: Slot, err: (Error & { code?: string }) | null, exitCode: number | null) => {
    if (slot.retired || closed) return;
    const held = retire(slot);
    const begun = held.filter((p) => p.begun);
    const why =
      err?.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? parseFailure('', 'out_of_memory', `the parser ran out of memory: reading this document needed more than the ${options.max_worker_memory_mb} MB a worker may use (the ingest.max_worker_memory_mb limit)`)
        : parseFailure('', 'internal', `the parser stopped: ${err ? err.message : `worker exited with code ${exitCode}`}`);
    // Never ready: the worker itself is broken (e.g. its script failed to load); sending the jobs again would loop.
    const blame = !slot.ready || begun.length === 0 ? held : begun;
    for (const p of held) {
      if (!blame.includes(p)) enqueue(p.job);
      else if (blame.length > 1 && !p.job.alone) enqueue({ ...p.job, alone: true });
      else if (!why.ok) p.job.resolve({ ok: false, failure: { ...why.failure, path: p.job.path } });
    }
    pump();
  };

  /** The tokenizer's tables for the pool's workers, while it has any (a closed pool's host need not hold them). */
  let tables: SharedArrayBuffer | null | undefined;
  const spawn = (): Slot => {
    const slot: Slot = { worker: startWorker(workerScript, { workerData: { options, tokenizerTables: (tables ??= shareTokenizerTables()) } satisfies WorkerSetup, resourceLimits: { maxOldGenerationSizeMb: options.max_worker_memory_mb, maxYoungGenerationSizeMb: INGEST_WORKER_YOUNG_MB } }), busy: 0, retired: false, ready: false, warming: null, retiring: false };
    slot.worker.on('message', (msg: WorkerResponse) => {
      if (slot.retired) return;
      if ('log' in msg) return onLog?.(msg.log);
      if ('ready' in msg) {
        // Its first job begins now, not when it was sent: a fresh worker's start is not the document's.
        slot.ready = true;
        const first = [...pending].find(([, p]) => p.slot === slot);
        return first ? begin(first[0]) : undefined;
      }
      if ('warming' in msg) return warming(slot, msg.warming);
      if ('retire' in msg) {
        slot.retiring = true;
        if (slot.busy === 0) retire(slot);
        return;
      }
      if ('started' in msg) return begin(msg.started);
      if ('ocr' in msg) return pending.get(msg.ocr.id)?.job.onOcrPage?.({ index: msg.ocr.index, count: msg.ocr.count, page: msg.ocr.page });
      const p = pending.get(msg.id);
      if (!p) return;
      const doc = 'outcome' in msg ? serializedOf(msg.outcome) : null;
      if (doc) {
        const buf = doc.json.buffer;
        // Back to this worker for its next document, unless it has stopped meanwhile.
        doc.release = () => void (slot.retired || closed ? undefined : slot.worker.postMessage({ recycle: buf } satisfies WorkerRecycle, [buf]));
      }
      settle(msg.id, 'outcome' in msg ? msg.outcome : parseFailure(p.job.path, 'internal', `unexpected error: ${msg.error}`));
    });
    slot.worker.on('error', (err) => died(slot, err, null));
    slot.worker.on('exit', (code) => died(slot, null, code));
    slot.worker.unref();
    return slot;
  };

  // An idle worker must not keep the process alive; a busy one must, or a CLI run would end mid-job.
  function release(slot: Slot, weight: number): void {
    slot.busy = Math.max(0, slot.busy - weight);
    if (slot.busy === 0) slot.worker.unref();
    if (slot.busy === 0 && slot.retiring && !slot.retired) retire(slot);
    pump();
  }
  /** The least busy worker with room for `weight` jobs, if any. */
  function freeSlot(weight: number): Slot | undefined {
    let best: Slot | undefined;
    for (const s of slots) if (!s.retiring && s.busy + weight <= JOBS_PER_WORKER && (!best || s.busy < best.busy)) best = s;
    return best;
  }
  function enqueue(job: Job): void {
    queue.push(job);
  }
  /** Sends queued jobs, in order, while workers have room; a job that finds every worker busy starts another, up to `size`. */
  function pump(): void {
    while (head < queue.length && !closed) {
      const job = queue[head]!;
      const weight = job.alone ? JOBS_PER_WORKER : 1;
      if (slots.length < size && !slots.some((s) => s.busy === 0)) slots.push(spawn());
      const slot = freeSlot(weight);
      if (!slot) break;
      queue[head++] = undefined as unknown as Job;
      slot.busy += weight;
      const id = nextId++;
      pending.set(id, { job, slot, weight, begun: false });
      if (slot.busy === weight) {
        // Nothing else on that worker: it begins the job as it arrives (once it has started).
        slot.worker.ref();
        if (slot.ready) begin(id);
      }
      // The options went once, with the worker's start.
      const req: WorkerRequest = { id, path: job.path, identity: job.identity, ...(job.knownHash !== undefined ? { knownHash: job.knownHash } : {}), ...(job.serialize ? { serialize: true } : {}) };
      slot.worker.postMessage(req);
    }
    // Drop the taken part once it is most of the array.
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  }

  /** A job queued; it resolves with what its worker answers (the serialised form when `serialize`). */
  async function submit<T extends ScanOutcome | SerializedScan>(serialize: boolean, p: string, identity: FileIdentity, signal?: AbortSignal, knownHash?: string, onOcrPage?: (p: OcrPage) => void): Promise<T> {
    signal?.throwIfAborted();
    if (closed) throw new Error('ingestion pool closed');
    return new Promise<T>((resolve, reject) => {
      enqueue({ path: p, identity, serialize, ...(knownHash !== undefined ? { knownHash } : {}), ...(onOcrPage ? { onOcrPage } : {}), resolve: resolve as (o: ScanOutcome | SerializedScan) => void, reject, alone: false });
      pump();
    });
  }

  return {
    size,
    get started() {
      return slots.length;
    },
    run: (p, identity, signal, knownHash, onOcrPage) => submit<ScanOutcome>(false, p, identity, signal, knownHash, onOcrPage),
    runSerialized: (p, identity, signal, knownHash, onOcrPage) => submit<SerializedScan>(true, p, identity, signal, knownHash, onOcrPage),
    async close() {
      closed = true;
      tables = undefined;
      for (const [, p] of pending) {
        clearTimeout(p.timer);
        p.job.reject(new Error('ingestion pool closed'));
      }
      pending.clear();
      const unsent = queue.slice(head);
      queue.length = 0;
      head = 0;
      for (const job of unsent) job.reject(new Error('ingestion pool closed'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
