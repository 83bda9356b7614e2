import type { Worker } from 'node:worker_threads';
import { IngestError, errorMessage } from '../../common/errors';
import { startWorker } from '../../common/worker-script';
import type { BlockLocation } from '../../shared/block-location';
import type { IngestOptions } from '../model';
import { parserFor } from '../parse/registry';
import { contentHash, readDocumentBytesSync } from './ingest-file';
import { defaultWorkerScript, type WorkerLog, type WorkerSetup } from './ingest-pool';

/** A file rendered for the document view (parser.ts, RenderedDocument), with the hash of the bytes it came from. */
export type RenderOutcome =
  | { ok: true; html: string; parts: number; content_hash: string }
  | { ok: false; stage: 'read' | 'decode' | 'parse'; code: string; message: string };

/** The message that asks an ingestion worker to render instead of ingest (see ingest-worker.ts). */
export interface RenderRequest {
  render: { path: string; location: BlockLocation };
}
export type RenderResponse = { rendered: RenderOutcome } | { log: WorkerLog } | { ready: true };

/** Reads and renders one file, in the calling thread: the ingestion worker calls it. */
export async function renderFile(path: string, location: BlockLocation, options: IngestOptions): Promise<RenderOutcome> {
  try {
    const parser = parserFor(path);
    if (!parser?.render) throw new IngestError('read', 'unsupported_format', `DocQA's document view shows Word files, web pages, e-books and slides, not ${path}`);
    const { bytes } = readDocumentBytesSync(path, options);
    const r = await parser.render(bytes, { path }, location);
    return { ok: true, html: r.html, parts: r.parts, content_hash: contentHash(bytes) };
  } catch (err) {
    if (err instanceof IngestError && err.stage !== 'block' && err.stage !== 'embed' && err.stage !== 'index') return { ok: false, stage: err.stage, code: err.code, message: err.message };
    return { ok: false, stage: 'parse', code: 'internal', message: `unexpected error: ${errorMessage(err)}` };
  }
}

/**
 * Renders a file in an ingestion worker of its own, under the same limits as ingesting it (time,
 * heap): the converters are CPU work and read hostile files, and the extension host is shared. The
 * worker is stopped when done, on time-out or on `signal`.
 */
export function renderInWorker(path: string, location: BlockLocation, options: IngestOptions, signal?: AbortSignal, onLog?: (log: WorkerLog) => void): Promise<RenderOutcome> {
  const script = defaultWorkerScript();
  if (!script) return renderFile(path, location, options);
  signal?.throwIfAborted();
  return new Promise<RenderOutcome>((resolve, reject) => {
    const worker: Worker = startWorker(script, { workerData: { options } satisfies WorkerSetup, resourceLimits: { maxOldGenerationSizeMb: options.max_worker_memory_mb } });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      fn();
    };
    const fail = (code: string, message: string) => finish(() => resolve({ ok: false, stage: 'parse', code, message }));
    const timer = setTimeout(() => fail('too_slow', `rendering took longer than ${Math.round(options.max_document_ms / 1000)} s (the ingest.max_document_ms limit), so it was stopped`), options.max_document_ms);
    const onAbort = () => finish(() => reject(signal!.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: RenderResponse) => {
      if ('log' in m) onLog?.(m.log);
      else if ('rendered' in m) finish(() => resolve(m.rendered));
    });
    worker.on('error', (err: Error & { code?: string }) =>
      fail(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out_of_memory' : 'internal', err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `rendering needed more than the ${options.max_worker_memory_mb} MB a worker may use (the ingest.max_worker_memory_mb limit)` : `the renderer stopped: ${err.message}`),
    );
    worker.on('exit', (code) => fail('internal', `the renderer stopped: worker exited with code ${code}`));
    worker.postMessage({ render: { path, location } } satisfies RenderRequest);
  });
}
