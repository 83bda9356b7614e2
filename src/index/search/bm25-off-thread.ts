import type { Worker } from 'node:worker_threads';
import { startWorker, workerScript } from '../../common/worker-script';
import { type Bm25Data, buildBm25Yielding } from './bm25-build';
import { PackedTerms } from './term-table';

export type Bm25WorkerRequest = { type: 'slice'; texts: string[]; headings: string[] } | { type: 'build' };
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
 * Keyword indexes of a build, made in one worker thread, batch after batch: on the extension host,
 * tokenising and sorting a collection's terms in this thread stalled the event loop for a second at
 * 3,000 blocks (bench `extension`). Same result as buildBm25 (the terms come back packed). Without a
 * worker script, in slices on this thread. One worker for all batches: a worker per batch paid a
 * thread's start each time, and each ended thread left native memory behind (a 100k-block build's
 * resident memory crept up by about 60 MB over its 50 batches). One batch at a time; cancelling ends
 * the worker (the next batch starts another).
 */
export class Bm25OffThread {
  private worker: Worker | null = null;
  private busy = false;

  constructor(private readonly script: string | null = workerScript(__dirname, 'bm25-worker')) {}

  async build(texts: readonly string[], headings: readonly string[], signal?: AbortSignal): Promise<Bm25Data> {
    if (!this.script) return buildBm25Yielding(texts, headings, signal);
    signal?.throwIfAborted();
    if (this.busy) throw new Error('internal: one keyword index at a time per worker');
    this.busy = true;
    const worker = (this.worker ??= startWorker(this.script, { resourceLimits: { maxYoungGenerationSizeMb: BM25_WORKER_YOUNG_MB } }));
    // Idle between batches, it must not keep the process alive; busy, it must.
    worker.ref();
    let onAbort: (() => void) | null = null;
    let onMessage: ((r: Bm25WorkerResponse) => void) | null = null;
    let onError: ((e: Error) => void) | null = null;
    let onExit: ((code: number) => void) | null = null;
    let ok = false;
    try {
      const reply = new Promise<Bm25WorkerResponse>((resolve, reject) => {
        onMessage = resolve;
        onError = reject;
        onExit = (code) => reject(new Error(`the keyword index worker exited with code ${code}`));
        worker.once('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        onAbort = () => reject(signal!.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      // Settled on every path (cancelled while slicing, or the worker ended after its answer).
      reply.catch(() => undefined);
      for (let i = 0; i < texts.length; i += SLICE) {
        worker.postMessage({ type: 'slice', texts: texts.slice(i, i + SLICE), headings: headings.slice(i, i + SLICE) } satisfies Bm25WorkerRequest);
        // Give the loop back between slices: a large collection is many clones.
        await new Promise<void>((r) => setImmediate(r));
        signal?.throwIfAborted();
      }
      worker.postMessage({ type: 'build' } satisfies Bm25WorkerRequest);
      const r = await reply;
      if (r.type === 'failed') throw new Error(`building the keyword index failed: ${r.message}`);
      ok = true;
      return { terms: new PackedTerms(r.chars, r.starts), offsets: r.offsets, blocks: r.blocks, tfs: r.tfs, headTfs: r.headTfs, docLengths: r.docLengths, headLengths: r.headLengths };
    } finally {
      // A build calls this once per batch with its one signal: the listeners go with the call.
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      if (onMessage) worker.off('message', onMessage);
      if (onError) worker.off('error', onError);
      if (onExit) worker.off('exit', onExit);
      this.busy = false;
      worker.unref();
      // Cancelled or failed half-way: the worker may hold a half-built index; it is not reused.
      if (!ok) await this.close();
    }
  }

  /** Ends the worker (the build's last batch is done, or it was cancelled). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
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
