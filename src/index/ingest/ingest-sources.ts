import fs from 'node:fs';
import { basename } from 'node:path';
import { type DataDir } from '../../common/data-dir';
import { registerDocuments } from '../sources/doc-registry';
import { createIngestPool, type IngestPool, type OcrPage } from './ingest-pool';
import type { FileIdentity } from './ingest-file';
import type { SerializedDocument, SerializedScan } from './serialized-document';
import type { Document, UnreadPage } from '../../shared/document';
import type { FailedDocument } from '../../shared/failed-document';
import type { IngestOptions } from '../model';
import { NEEDS_OCR_REASON, needsOcrWords, pageRanges } from '../parse/pdf-pages';
import { type SourceFile, walkSource } from '../sources/source-walker';
import type { PauseGate } from './pause-gate';
import type { StagedFolder } from '../store/staged-folder';
import { loadSources, type Source } from '../sources/sources';
import type { SkippedEntry } from '../sources/secret-files';

export interface IngestProgress {
  stage: 'walk' | 'parse';
  done: number;
  total: number;
  /** Bytes and blocks of the documents parsed so far. */
  bytes: number;
  blocks: number;
  /** A scanned page of `path` being read by OCR (ingest.ocr on); absent otherwise. */
  ocr?: OcrPage & { path: string };
}

/** What a run keeps of each parsed document: the document itself, or a record of where it was set aside. */
export interface IngestedDocument {
  doc_id: string;
  path: string;
  content_hash: string;
  unread_pages?: UnreadPage[];
}

export interface IngestRun<D extends IngestedDocument = Document> {
  sources: Source[];
  /** Documents parsed in this run, with stable doc_ids, by path. */
  documents: D[];
  failed_documents: FailedDocument[];
  /** Entries of the sources left out on purpose (secret-looking, outside the source, .gitignored), by path. */
  skipped: SkippedEntry[];
  /** Files whose previous document still stands (same bytes), by path; not parsed again. */
  reused: ReusedFile[];
  /** Modification time of each parsed document's file when it was read, by path. */
  mtimes: Map<string, number>;
}

/** What a previous build knew of a file: enough to tell it is unchanged without reading it. */
export interface PreviousFile {
  path: string;
  content_hash: string;
  byte_size: number;
  mtime_ms: number;
  /** Pages its document was indexed without (a partial document): still said when it is reused. */
  unread_pages?: UnreadPage[];
}

/**
 * A document indexed without some of its pages is also listed among the failed documents, with those
 * pages: the snapshot is then partial, and an answer says what it could not cover.
 */
export function partialFailure(path: string, unread: readonly UnreadPage[]): FailedDocument {
  const pages = unread.map((u) => u.page);
  // Scanned pages left unread because OCR is off are said as one range, with what to do about them.
  const needOcr = unread.filter((u) => u.reason === NEEDS_OCR_REASON);
  const other = unread.filter((u) => u.reason !== NEEDS_OCR_REASON);
  const said: string[] = [];
  if (needOcr.length) said.push(needsOcrWords(needOcr.map((u) => u.page), basename(path)));
  if (other.length) {
    const named = other.map((u) => `page ${u.page}: ${u.reason}`).join('; ');
    said.push(`indexed without ${other.length === 1 ? 'page' : 'pages'} ${pageRanges(other.map((u) => u.page))}, whose text could not be read (${named})`);
  }
  return { path, stage: 'parse', code: unread.every((u) => u.code === 'corrupt') ? 'corrupt' : 'no_text', message: `${said.join('; ')}; the other pages are indexed`, pages };
}

/**
 * A previous document with scanned pages left unread (OCR off then, or stopped at the time limit) is
 * parsed again when OCR is on, even if its file is unchanged: its pages may be read now.
 */
export function scansToRead(previous: PreviousFile, options: IngestOptions): boolean {
  return options.ocr && (previous.unread_pages ?? []).some((u) => u.image_only);
}

const reusable = <P extends PreviousFile>(previous: P | undefined, options: IngestOptions): P | undefined => (previous && !scansToRead(previous, options) ? previous : undefined);

/** A file unchanged since the previous build, with its stable doc_id, current source and stat. */
export interface ReusedFile<P extends PreviousFile = PreviousFile> {
  previous: P;
  doc_id: string;
  source_label: string;
  aliases: string[];
  byte_size: number;
  mtime_ms: number;
}

export interface IngestRunOptions<P extends PreviousFile = PreviousFile, D extends IngestedDocument = Document> {
  /**
   * What to keep of each parsed document as it arrives (default: the document): a large build sets
   * them aside on disk (DocumentSpool) instead of holding every parsed document until it is written.
   */
  keep?: (doc: Document) => Promise<D>;
  /**
   * Instead of `keep`: what to keep of a document serialised where it was parsed (see
   * SerializedDocument); the pool's workers then hand over bytes, not objects.
   */
  keepSerialized?: (doc: SerializedDocument) => Promise<D>;
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
  /** Where reading and parsing run; by default a pool of worker threads (in-process without a worker script). */
  pool?: IngestPool;
  /**
   * Files of the previous snapshot (built with the same chunking and tokenizer), by path. A file whose
   * size and modification time are unchanged is not even read; one whose bytes hash the same is not
   * parsed (copy-on-write).
   */
  previous?: ReadonlyMap<string, P>;
  /**
   * Size and time are trusted only for files last modified before this (ms since the epoch): a file
   * written in the same moment the previous build read it could change again without its time moving
   * (the "racy" case git also guards against), so it is hashed.
   */
  trustMtimeBefore?: number;
  /** Holds the batch between documents while paused. */
  gate?: PauseGate;
  /** The snapshot being built: the registry's changes are committed with it (see registerDocuments). */
  staged?: StagedFolder;
}

const byPath = <T extends { path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Placeholder until the registry has seen every file's content hash (renames are matched by content). */
const PENDING_ID = '';
/** Files stat'ed between two turns of the event loop (the extension host must stay responsive). */
const STAT_BATCH = 256;

/** Size and mtime of a file, or null when it cannot be stat'ed (the pool then reports why). */
function statOf(file: string): { size: number; mtimeMs: number } | null {
  try {
    return fs.statSync(file);
  } catch {
    return null;
  }
}

/**
 * Walks every source, then reads, hashes, parses and blocks each changed file (in worker threads), then
 * assigns stable doc_ids from the persisted registry. A bad file becomes a failed_documents entry and the
 * batch goes on. Output is sorted by path, so the same files give the same result. The caller holds the
 * data directory's build lock: the doc_id registry is rewritten.
 */
export async function ingestSources<P extends PreviousFile = PreviousFile, D extends IngestedDocument = Document>(dir: DataDir, options: IngestOptions, run: IngestRunOptions<P, D> = {}): Promise<IngestRun<D> & { reused: Array<ReusedFile<P>> }> {
  const { signal, onProgress } = run;
  const sources = await loadSources(dir);
  // By real path: a file reachable from two sources (a folder and a file inside it) or by two paths (a
  // symlink to it, a linked folder) is one document, found under its own path when any walk reached it
  // there, else where the first source did. A problem reached twice is reported once.
  const files = new Map<string, SourceFile>();
  const problems = new Map<string, FailedDocument>();
  const skipped = new Map<string, SkippedEntry>();
  for (const [i, source] of sources.entries()) {
    onProgress?.({ stage: 'walk', done: i, total: sources.length, bytes: 0, blocks: 0 });
    const walked = await walkSource(source, signal, options.globs);
    for (const p of walked.problems) {
      const key = `${p.failure.code}\0${p.real}`;
      if (!problems.has(key)) problems.set(key, p.failure);
    }
    for (const k of walked.skipped) if (!skipped.has(k.path)) skipped.set(k.path, k);
    for (const f of walked.files) {
      const seen = files.get(f.realPath);
      if (!seen || (seen.path !== f.realPath && f.path === f.realPath)) files.set(f.realPath, f);
    }
  }
  const failed = [...problems.values()];
  const ordered = [...files.values()].sort(byPath);

  // Unchanged size and time (and not racy): the previous document stands, nothing is read.
  type Kept = { ok: true; kept: D; mtime_ms: number | undefined };
  const outcomes: Array<Exclude<SerializedScan, { ok: true }> | Kept | undefined> = new Array(ordered.length);
  const trustBefore = run.trustMtimeBefore ?? -Infinity;
  if (run.previous) {
    for (const [i, file] of ordered.entries()) {
      if (i % STAT_BATCH === STAT_BATCH - 1) await new Promise<void>((r) => setImmediate(r));
      const prev = run.previous.get(file.path);
      if (!prev || scansToRead(prev, options)) continue;
      const st = statOf(file.path);
      if (st && st.size === prev.byte_size && st.mtimeMs === prev.mtime_ms && st.mtimeMs < trustBefore) {
        outcomes[i] = { ok: 'unchanged', path: file.path, content_hash: prev.content_hash, byte_size: st.size, mtime_ms: st.mtimeMs };
      }
    }
  }

  const pool = run.pool ?? createIngestPool(options);
  type Scanned = { ok: true; byte_size: number; blocks: number; mtime_ms: number | undefined; keep: () => Promise<D> } | Exclude<SerializedScan, { ok: true }>;
  /** One file through the pool: its document serialised by the worker when the run keeps it so. */
  const scan = async (path: string, identity: FileIdentity, knownHash: string | undefined, onOcrPage: (p: OcrPage) => void): Promise<Scanned> => {
    const { keepSerialized } = run;
    if (keepSerialized) {
      const o = await pool.runSerialized(path, identity, signal, knownHash, onOcrPage);
      return o.ok === true ? { ok: true, byte_size: o.serialized.head.byte_size, blocks: o.serialized.head.blocks, mtime_ms: o.mtime_ms, keep: () => keepSerialized(o.serialized) } : o;
    }
    const o = await pool.run(path, identity, signal, knownHash, onOcrPage);
    return o.ok === true ? { ok: true, byte_size: o.document.byte_size, blocks: o.document.blocks.length, mtime_ms: o.mtime_ms, keep: async () => (run.keep ? run.keep(o.document) : (o.document as unknown as D)) } : o;
  };
  const inFlight = new Set<Promise<void>>();
  const toScan = ordered.flatMap((f, i) => (outcomes[i] ? [] : [i]));
  let done = 0;
  let bytes = 0;
  let blocks = 0;
  try {
    for (const i of toScan) {
      const file = ordered[i]!;
      signal?.throwIfAborted();
      await run.gate?.passable(signal);
      const identity = { doc_id: PENDING_ID, source_label: file.source.label, aliases: file.source.aliases };
      const knownHash = reusable(run.previous?.get(file.path), options)?.content_hash;
      const onOcrPage = (p: OcrPage) => onProgress?.({ stage: 'parse', done, total: toScan.length, bytes, blocks, ocr: { ...p, path: file.path } });
      const job: Promise<void> = scan(file.path, identity, knownHash, onOcrPage).then(async (o) => {
        if (o.ok === true) {
          bytes += o.byte_size;
          blocks += o.blocks;
          outcomes[i] = { ok: true, kept: await o.keep(), mtime_ms: o.mtime_ms };
        } else outcomes[i] = o;
        inFlight.delete(job);
        onProgress?.({ stage: 'parse', done: ++done, total: toScan.length, bytes, blocks });
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

  const documents: D[] = [];
  const reused: Array<ReusedFile<P>> = [];
  const mtimes = new Map<string, number>();
  for (const [i, o] of outcomes.entries()) {
    const file = ordered[i]!;
    if (!o) throw new Error(`internal: no outcome for ${file.path}`);
    if (o.ok === 'unchanged') {
      const previous = run.previous!.get(o.path)!;
      reused.push({ previous, doc_id: PENDING_ID, source_label: file.source.label, aliases: file.source.aliases, byte_size: o.byte_size, mtime_ms: o.mtime_ms });
      if (previous.unread_pages?.length) failed.push(partialFailure(previous.path, previous.unread_pages));
    } else if (o.ok) {
      documents.push(o.kept);
      if (o.kept.unread_pages?.length) failed.push(partialFailure(o.kept.path, o.kept.unread_pages));
      mtimes.set(o.kept.path, o.mtime_ms ?? 0);
    } else failed.push(o.failure);
  }
  const ids = await registerDocuments(dir, [...documents.map((d) => ({ path: d.path, content_hash: d.content_hash })), ...reused.map((r) => ({ path: r.previous.path, content_hash: r.previous.content_hash }))], run.staged);
  for (const d of documents) d.doc_id = ids.get(d.path)!;
  for (const r of reused) r.doc_id = ids.get(r.previous.path)!;
  // A file one source skipped (a symlink out of it) may be read through another: then it is not skipped.
  const read = new Set([...documents.map((d) => d.path), ...reused.map((r) => r.previous.path)]);
  const leftOut = [...skipped.values()].filter((k) => !read.has(k.path)).sort(byPath);
  return { sources, documents: documents.sort(byPath), failed_documents: failed.sort(byPath), skipped: leftOut, reused, mtimes };
}
