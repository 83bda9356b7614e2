/**
 * The ingestion job as a tinypool task (bench/handwritten.bench.ts bundles it as the build bundles
 * dist/ingest-worker.js): the same ingestFile call, with the same blocking read, that our worker makes.
 */
import { ingestFile, type FileIdentity } from '../src/index/ingest/ingest-file';
import type { IngestOptions } from '../src/index/model';

export default function ingest(req: { path: string; identity: FileIdentity; options: IngestOptions }) {
  return ingestFile(req.path, req.identity, req.options, { syncRead: true });
}
