/**
 * Worker-thread entry: builds a keyword index off the main thread (the extension host must not stall on
 * tokenising and sorting a large collection). Bundled as dist/bm25-worker.js. Texts arrive in slices
 * (no single large clone on the sending thread) and are indexed as they come (not kept); the index goes
 * back with its arrays transferred, and their buffers come back once the host has written it (`recycle`)
 * to hold a later batch's. One worker serves a whole build, batch after batch: each `build` answers and
 * starts a fresh index for the next.
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import { Bm25Builder } from './bm25-build';
import { BufferPool } from './buffer-pool';
import { packTerms } from './term-table';
import type { Bm25WorkerRequest, Bm25WorkerResponse } from './bm25-off-thread';

const port = isMainThread ? null : parentPort;
if (port) {
  const builder = new Bm25Builder();
  const pool = new BufferPool();
  let failure: string | null = null;
  port.on('message', (m: Bm25WorkerRequest) => {
    if (m.type === 'recycle') {
      pool.give(m.buffers);
      return;
    }
    if (m.type === 'slice') {
      try {
        if (failure === null) builder.add(m.texts, m.headings);
      } catch (err) {
        failure = err instanceof Error ? err.message : String(err);
      }
      return;
    }
    const failed = failure;
    failure = null;
    try {
      if (failed !== null) throw new Error(failed);
      const d = builder.finish(pool.take);
      const { chars, starts } = packTerms(d.terms, pool.take);
      const reply: Bm25WorkerResponse = { type: 'built', chars, starts, offsets: d.offsets, blocks: d.blocks, tfs: d.tfs, headTfs: d.headTfs, docLengths: d.docLengths, headLengths: d.headLengths };
      port.postMessage(reply, [chars.buffer, starts.buffer, d.offsets.buffer, d.blocks.buffer, d.tfs.buffer, d.headTfs.buffer, d.docLengths.buffer, d.headLengths.buffer] as ArrayBuffer[]);
    } catch (err) {
      port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) } satisfies Bm25WorkerResponse);
    } finally {
      builder.reset();
    }
  });
}
