import { type DataDir } from './data-dir';
import { registerDocuments } from './doc-registry';
import { createIngestPool, type IngestPool, type ScanOutcome } from './ingest-pool';
import type { Document, FailedDocument, IngestOptions } from './model';
import { type SourceFile, walkSource } from './source-walker';
import type { PauseGate } from './pause-gate';
import { loadSources, type Source } from './sources';

export interface IngestProgress {
  stage: 'walk' | 'parse';
  done: number;
  total: number;
}

export interface IngestRun {
  sources: Source[];
  documents: Document[];
  failed_documents: FailedDocument[];
  /** Paths whose documents were taken over from `previous` unparsed. */
  reused: Set<string>;
}

export interface IngestRunOptions {
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
  /** Where reading and parsing run; by default a pool of worker threads (in-process without a worker script). */
  pool?: IngestPool;
  /**
   * Documents from the previous snapshot (built with the same chunking and tokenizer), by path: a file
   * whose bytes are unchanged is read and hashed but not parsed again (copy-on-write).
   */
  previous?: ReadonlyMap<string, Document>;
  /** Holds the batch between documents while paused. */
  gate?: PauseGate;
}

const byPath = <T extends { path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Placeholder until the registry has seen every file's content hash (renames are matched by content). */
const PENDING_ID = '';

/**
 * Walks every source, then reads, hashes, parses and blocks each file (in worker threads), then assigns
 * stable doc_ids from the persisted registry. A bad file becomes a failed_documents entry and the batch
 * goes on. Output is sorted by path, so the same files give the same result.
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

  const pool = run.pool ?? createIngestPool(options);
  const outcomes: ScanOutcome[] = new Array(ordered.length);
  const inFlight = new Set<Promise<void>>();
  let done = 0;
  try {
    for (const [i, file] of ordered.entries()) {
      signal?.throwIfAborted();
      await run.gate?.passable(signal);
      const identity = { doc_id: PENDING_ID, source_label: file.source.label, aliases: file.source.aliases };
      const job: Promise<void> = pool.run(file.path, identity, signal, run.previous?.get(file.path)?.content_hash).then((o) => {
        outcomes[i] = o;
        inFlight.delete(job);
        onProgress?.({ stage: 'parse', done: ++done, total: ordered.length });
      });
      inFlight.add(job);
      // Keep every worker fed, and no more documents than that in flight.
      if (inFlight.size >= pool.size * 3) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    if (!run.pool) await pool.close();
  }
  signal?.throwIfAborted();

  const documents: Document[] = [];
  const reused = new Set<string>();
  for (const [i, o] of outcomes.entries()) {
    if (o.ok === 'unchanged') {
      const prev = run.previous!.get(o.path)!;
      // The source's label and aliases may have changed even though the file did not.
      documents.push({ ...prev, source_label: ordered[i]!.source.label, aliases: ordered[i]!.source.aliases });
      reused.add(o.path);
    } else if (o.ok) documents.push(o.document);
    else failed.push(o.failure);
  }
  const ids = await registerDocuments(dir, documents.map((d) => ({ path: d.path, content_hash: d.content_hash })));
  for (const d of documents) d.doc_id = ids.get(d.path)!;
  return { sources, documents: documents.sort(byPath), failed_documents: failed.sort(byPath), reused };
}
