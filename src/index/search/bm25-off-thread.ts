import type { Worker } from 'node:worker_threads';
import { startWorker, workerScript } from '../../common/worker-script';
import { type Bm25Data, Bm25Builder } from './bm25-build';
import { PackedTerms } from './term-table';

export type Bm25WorkerRequest = { type: 'slice'; texts: string[]; headings: string[] } | { type: 'build' } | { type: 'recycle'; buffers: ArrayBuffer[] };
export type Bm25WorkerResponse =
  | { type: 'built'; chars: Uint16Array; starts: Uint32Array; offsets: Uint32Array; blocks: Uint32Array; tfs: Uint16Array; headTfs: Uint16Array; docLengths: Uint32Array; headLengths: Uint32Array }
  | { type: 'failed'; message: string };

/** Texts per message: each clone on this thread stays small. */
const SLICE = 1000;

/**
 * Young generation of the keyword-index worker (MB). V8's default (3 × 16 MB semi-spaces) is sized for
 * a long-lived process; a batch's tokenising churns through it between scavenges and the pages stay
 * resident, about 30 MB of a 100k-block build's peak for no measurable speed.
 */
export const BM25_WORKER_YOUNG_MB = 8;

/**
 * One batch's keyword index being fed: texts go to the worker as they are added (this thread keeps
 * none of them), and `finish` asks for the index. The next batch may be fed while this one is built.
 */
export interface Bm25Job {
  /** Blocks' texts and headings, in block order (copied before this returns). */
  add(texts: readonly string[], headings: readonly string[]): Promise<void>;
  finish(): Promise<Bm25Data>;
}

type Waiter = { resolve: (d: Bm25Data) => void; reject: (e: unknown) => void };

/**
 * Keyword indexes of a build, made in one worker thread, batch after batch: on the extension host,
 * tokenising and sorting a collection's terms in this thread stalled the event loop for a second at
 * 3,000 blocks (bench `extension`). Same result as buildBm25 (the terms come back packed). Without a
 * worker script, on this thread. One worker for all batches: a worker per batch paid a thread's start
 * each time, and each ended thread left native memory behind (a 100k-block build's resident memory
 * crept up by about 60 MB over its 50 batches). A batch is fed document by document (a build holds
 * none of a batch's texts), the worker answers batches in the order they were finished, and the next
 * batch can be fed while the last is built. Cancelling ends the worker (the next batch starts another).
 */
export class Bm25OffThread {
  private worker: Worker | null = null;
  /** Batches finished and not yet answered, oldest first (the worker answers in order). */
  private waiting: Waiter[] = [];
  private feeding = false;
  /** The buffers of each index the worker sent, for `recycle`. */
  private readonly sent = new WeakMap<Bm25Data, ArrayBuffer[]>();

  constructor(private readonly script: string | null = workerScript(__dirname, 'bm25-worker')) {}

  /** Starts a batch; one is fed at a time (`finish` before the next `begin`). */
  begin(signal?: AbortSignal): Bm25Job {
    signal?.throwIfAborted();
    if (this.feeding) throw new Error('internal: one keyword index is fed at a time');
    this.feeding = true;
    return this.script ? this.workerJob(signal) : this.localJob(signal);
  }

  /** One keyword index of `texts` (block order). */
  async build(texts: readonly string[], headings: readonly string[], signal?: AbortSignal): Promise<Bm25Data> {
    const job = this.begin(signal);
    try {
      await job.add(texts, headings);
    } catch (err) {
      // Cancelled while fed: the job still ends, so that the next one can begin.
      job.finish().catch(() => undefined);
      throw err;
    }
    return job.finish();
  }

  private localJob(signal?: AbortSignal): Bm25Job {
    const builder = new Bm25Builder();
    return {
      add: async (texts, headings) => {
        signal?.throwIfAborted();
        builder.add(texts, headings);
      },
      finish: async () => {
        this.feeding = false;
        signal?.throwIfAborted();
        return builder.finish();
      },
    };
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.script!, { resourceLimits: { maxYoungGenerationSizeMb: BM25_WORKER_YOUNG_MB } });
    // An ended worker's waiters were rejected by close(); those waiting now may be another worker's.
    const fail = (err: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const w of this.waiting.splice(0)) w.reject(err);
    };
    worker.on('message', (r: Bm25WorkerResponse) => {
      if (this.worker !== worker) return;
      const w = this.waiting.shift();
      this.refresh();
      if (!w) return;
      if (r.type === 'failed') w.reject(new Error(`building the keyword index failed: ${r.message}`));
      else {
        const d = { terms: new PackedTerms(r.chars, r.starts), offsets: r.offsets, blocks: r.blocks, tfs: r.tfs, headTfs: r.headTfs, docLengths: r.docLengths, headLengths: r.headLengths };
        this.sent.set(d, [...new Set([r.chars.buffer, r.starts.buffer, r.offsets.buffer, r.blocks.buffer, r.tfs.buffer, r.headTfs.buffer])] as ArrayBuffer[]);
        w.resolve(d);
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the keyword index worker exited with code ${code}`)));
    return (this.worker = worker);
  }

  /** Busy (fed, or a batch awaited), the worker keeps the process alive; idle between batches, it must not. */
  private refresh(): void {
    if (!this.worker) return;
    if (this.feeding || this.waiting.length) this.worker.ref();
    else this.worker.unref();
  }

  private workerJob(signal?: AbortSignal): Bm25Job {
    const worker = this.started();
    this.refresh();
    let answer: Promise<Bm25Data> | null = null;
    // Cancelled while fed or awaited: the worker holds a half-built index; it ends (rejecting what
    // waits) and is not reused.
    const onAbort = () => {
      for (const w of this.waiting.splice(0)) w.reject(signal!.reason);
      void this.close();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const post = (m: Bm25WorkerRequest) => {
      if (this.worker !== worker) throw signal?.reason ?? new Error('the keyword index worker ended');
      worker.postMessage(m);
    };
    return {
      add: async (texts, headings) => {
        signal?.throwIfAborted();
        for (let i = 0; i < texts.length; i += SLICE) {
          // Give the loop back between slices: a large document is many clones.
          if (i > 0) await new Promise<void>((r) => setImmediate(r));
          signal?.throwIfAborted();
          post({ type: 'slice', texts: texts.slice(i, i + SLICE), headings: headings.slice(i, i + SLICE) });
        }
      },
      finish: () => {
        if (answer) return answer;
        this.feeding = false;
        answer = new Promise<Bm25Data>((resolve, reject) => {
          if (signal?.aborted || this.worker !== worker) {
            reject(signal?.reason ?? new Error('the keyword index worker ended'));
            return;
          }
          this.waiting.push({ resolve, reject });
          worker.postMessage({ type: 'build' } satisfies Bm25WorkerRequest);
        });
        const settled = () => {
          signal?.removeEventListener('abort', onAbort);
          this.refresh();
        };
        answer.then(settled, settled);
        this.refresh();
        return answer;
      },
    };
  }

  /**
   * Gives an index's arrays back to the worker once they are written: the next batches' arrays are cut
   * from them (BufferPool says why). `data` is unusable after this. An index built here, or by a worker
   * since ended, is left to the collector.
   */
  recycle(data: Bm25Data): void {
    const buffers = this.sent.get(data);
    this.sent.delete(data);
    if (!buffers || !this.worker) return;
    this.worker.postMessage({ type: 'recycle', buffers } satisfies Bm25WorkerRequest, buffers);
  }

  /** Ends the worker (the build's last batch is done, or it was cancelled); what waits is rejected. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.feeding = false;
    const reason = new DOMException('This operation was aborted', 'AbortError');
    for (const x of this.waiting.splice(0)) x.reject(reason);
    if (w) await w.terminate();
  }
}

/** One keyword index off this thread, in a worker of its own. */
export async function buildBm25OffThread(texts: readonly string[], headings: readonly string[], signal?: AbortSignal): Promise<Bm25Data> {
  const b = new Bm25OffThread();
  try {
    return await b.build(texts, headings, signal);
  } finally {
    await b.close();
  }
}
