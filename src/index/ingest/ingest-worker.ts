/**
 * Worker-thread entry: parses and blocks documents off the main thread, so the extension host never
 * freezes on a large PDF and ingestion uses every core. Bundled as dist/ingest-worker.js.
 */
import { parentPort } from 'node:worker_threads';
import { ingestFile } from './ingest-file';
import type { WorkerRequest, WorkerResponse } from './ingest-pool';

const port = parentPort;
if (port) {
  port.on('message', (req: WorkerRequest) => {
    void ingestFile(req.path, req.identity, req.options, { syncRead: true, knownHash: req.knownHash }).then(
      (outcome) => port.postMessage({ id: req.id, outcome } satisfies WorkerResponse),
      (err: unknown) => port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerResponse),
    );
  });
}
