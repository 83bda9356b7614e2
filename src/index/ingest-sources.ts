import { type DataDir } from './data-dir';
import { registerDocuments } from './doc-registry';
import { contentHash, ingestBytes, readDocumentBytes } from './ingest-file';
import { IngestError, errorMessage } from './errors';
import type { Document, FailedDocument, IngestOptions } from './model';
import { type SourceFile, walkSource } from './source-walker';
import { loadSources, type Source } from './sources';

export interface IngestProgress {
  stage: 'walk' | 'read' | 'parse';
  done: number;
  total: number;
}

export interface IngestRun {
  sources: Source[];
  documents: Document[];
  failed_documents: FailedDocument[];
}

export interface IngestRunOptions {
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
}

/** File bytes kept between hashing and parsing; beyond this, files are read again. */
const RETAINED_BYTES = 256 * 1024 * 1024;

const byPath = <T extends { path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * Walks every source, reads and hashes each file, assigns stable doc_ids (persisted), then parses and
 * blocks each file. A bad file becomes a failed_documents entry and the batch goes on. Output is sorted
 * by path, so the same files give the same result.
 */
export async function ingestSources(dir: DataDir, options: IngestOptions, run: IngestRunOptions = {}): Promise<IngestRun> {
  const { signal, onProgress } = run;
  const sources = await loadSources(dir);
  const files = new Map<string, SourceFile>();
  const failed: FailedDocument[] = [];
  for (const [i, source] of sources.entries()) {
    onProgress?.({ stage: 'walk', done: i, total: sources.length });
    const walked = await walkSource(source, signal);
    failed.push(...walked.problems);
    // A file reachable from two sources (a folder and a file inside it) is one document; the first source wins.
    for (const f of walked.files) if (!files.has(f.path)) files.set(f.path, f);
  }
  const ordered = [...files.values()].sort(byPath);

  // Ids need every file's hash first (renames are matched by content), so files are read twice unless
  // they fit in a bounded in-memory cache.
  const readable: Array<{ file: SourceFile; bytes: Uint8Array | null; hash: string }> = [];
  let kept = 0;
  for (const [i, file] of ordered.entries()) {
    signal?.throwIfAborted();
    onProgress?.({ stage: 'read', done: i, total: ordered.length });
    try {
      const bytes = await readDocumentBytes(file.path, options);
      const keep = kept + bytes.length <= RETAINED_BYTES;
      if (keep) kept += bytes.length;
      readable.push({ file, bytes: keep ? bytes : null, hash: contentHash(bytes) });
    } catch (err) {
      if (err instanceof IngestError) failed.push({ path: file.path, stage: err.stage, code: err.code, message: err.message });
      else failed.push({ path: file.path, stage: 'read', code: 'internal', message: errorMessage(err) });
    }
  }
  const ids = await registerDocuments(dir, readable.map((r) => ({ path: r.file.path, content_hash: r.hash })));

  const documents: Document[] = [];
  for (const [i, r] of readable.entries()) {
    signal?.throwIfAborted();
    onProgress?.({ stage: 'parse', done: i, total: readable.length });
    let bytes = r.bytes;
    if (!bytes) {
      try {
        bytes = await readDocumentBytes(r.file.path, options);
      } catch (err) {
        failed.push(err instanceof IngestError ? { path: r.file.path, stage: err.stage, code: err.code, message: err.message } : { path: r.file.path, stage: 'read', code: 'internal', message: errorMessage(err) });
        continue;
      }
    }
    r.bytes = null;
    const outcome = await ingestBytes(r.file.path, bytes, { doc_id: ids.get(r.file.path)!, source_label: r.file.source.label, aliases: r.file.source.aliases }, options, signal);
    if (outcome.ok) documents.push(outcome.document);
    else failed.push(outcome.failure);
  }
  onProgress?.({ stage: 'parse', done: readable.length, total: readable.length });
  return { sources, documents: documents.sort(byPath), failed_documents: failed.sort(byPath) };
}
