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
 * The keyword index of a build, made in a worker thread: on the extension host, tokenising and sorting
 * a collection's terms in this thread stalled the event loop for a second at 3,000 blocks (bench
 * `extension`). Same result as buildBm25 (the terms come back packed). Without a worker script, in
 * slices on this thread. Cancelling ends the worker.
 */
export async function buildBm25OffThread(texts: readonly string[], headings: readonly string[], signal?: AbortSignal): Promise<Bm25Data> {
  const script = workerScript(__dirname, 'bm25-worker');
  if (!script) return buildBm25Yielding(texts, headings, signal);
  signal?.throwIfAborted();
  const worker = startWorker(script);
  let onAbort: (() => void) | null = null;
  try {
    const reply = new Promise<Bm25WorkerResponse>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the keyword index worker exited with code ${code}`)));
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
    return { terms: new PackedTerms(r.chars, r.starts), offsets: r.offsets, blocks: r.blocks, tfs: r.tfs, headTfs: r.headTfs, docLengths: r.docLengths, headLengths: r.headLengths };
  } finally {
    // A build calls this once per batch with its one signal: the listener goes with the call.
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    await worker.terminate();
  }
}
