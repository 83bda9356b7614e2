import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import { buildDocument, type DocumentIdentity } from '../blocks/document-builder';
import { IngestError, errorMessage } from '../../common/errors';
import type { Document } from '../../shared/document';
import type { FailedDocument } from '../../shared/failed-document';
import type { IngestOptions } from '../model';
import { locationLabel } from '../../shared/location-label';
import { parserFor, SUPPORTED_EXTENSIONS } from '../parse/registry';
import type { OcrRequest } from '../parse/pdf-ocr';
import { secretIn } from '../sources/secret-files';

/** `mtime_ms`: the file's modification time when it was read (set by ingestFile, not ingestBytes). */
export type IngestOutcome = { ok: true; document: Document; mtime_ms?: number } | { ok: false; failure: FailedDocument };

/** A file's bytes with the modification time they were read at. */
export interface FileBytes {
  bytes: Uint8Array;
  mtime_ms: number;
}

export interface FileIdentity {
  doc_id: string;
  source_label: string;
  aliases: string[];
}

export function contentHash(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

function failure(path: string, err: unknown): FailedDocument {
  if (err instanceof IngestError) return { path, stage: err.stage, code: err.code, message: err.message };
  return { path, stage: 'parse', code: 'internal', message: `unexpected error: ${errorMessage(err)}` };
}

function unsupportedFormat(): IngestError {
  return new IngestError('read', 'unsupported_format', `unsupported file type; supported: ${SUPPORTED_EXTENSIONS.join(' ')}`);
}

function readFailure(err: unknown): IngestError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new IngestError('read', 'not_found', 'file does not exist');
  if (code === 'EACCES' || code === 'EPERM') return new IngestError('read', 'unreadable', 'permission denied');
  if (code === 'EISDIR') return new IngestError('read', 'unreadable', 'path is a directory, not a file');
  return new IngestError('read', 'unreadable', `cannot read file: ${code ?? errorMessage(err)}`);
}

/** A stat that must be of a regular file within the size limit; returns its mtime. */
function checkedMtime(st: { isFile(): boolean; size: number; mtimeMs: number }, options: IngestOptions): number {
  if (!st.isFile()) throw readFailure(Object.assign(new Error('not a file'), { code: 'EISDIR' }));
  if (st.size > options.max_file_bytes) {
    throw new IngestError('read', 'too_large', `file is ${st.size} bytes, over the ${options.max_file_bytes}-byte limit`);
  }
  if (st.size === 0) throw new IngestError('read', 'empty', 'file is empty (0 bytes)');
  return st.mtimeMs;
}

/** Reads the file's bytes, failing early on what can be known before parsing. */
export async function readDocumentBytes(path: string, options: IngestOptions): Promise<FileBytes> {
  if (!parserFor(path)) throw unsupportedFormat();
  const mtime_ms = checkedMtime(await fs.stat(path).catch((err: unknown) => Promise.reject(readFailure(err))), options);
  try {
    return { bytes: await fs.readFile(path), mtime_ms };
  } catch (err) {
    throw readFailure(err);
  }
}

/**
 * The same, blocking: for worker threads, which have nothing else to do meanwhile. It skips the two
 * thread-pool round trips per file that dominate reading many small notes (measured: a third of a
 * worker's time on a 5,000-note folder).
 */
export function readDocumentBytesSync(path: string, options: IngestOptions): FileBytes {
  if (!parserFor(path)) throw unsupportedFormat();
  let fd: number;
  try {
    fd = fsSync.openSync(path, 'r');
  } catch (err) {
    throw readFailure(err);
  }
  try {
    let st: fsSync.Stats;
    try {
      st = fsSync.fstatSync(fd);
    } catch (err) {
      throw readFailure(err);
    }
    const mtime_ms = checkedMtime(st, options);
    try {
      return { bytes: fsSync.readFileSync(fd), mtime_ms };
    } catch (err) {
      throw readFailure(err);
    }
  } finally {
    fsSync.closeSync(fd);
  }
}

/**
 * A document holding a credential is not indexed: its text would be sent to the embedding service.
 * The failure says where, so the person can take the secret out.
 */
function refuseSecrets(doc: Document): void {
  for (const b of doc.blocks) {
    const found = secretIn(b.text);
    if (!found) continue;
    const where = b.location.kind === 'lines' ? `near line ${b.location.line_start + found.line - 1}` : `at ${locationLabel(b.location)}`;
    throw new IngestError('parse', 'secret_content', `it contains what looks like ${found.what} (${where}); DocQA does not index it, so it is never sent to the embedding service: remove the secret from the file to index it`);
  }
}

/**
 * One file → a complete document, or a failure entry saying what was wrong. Never throws for a bad file;
 * only cancellation propagates.
 */
export async function ingestBytes(path: string, bytes: Uint8Array, identity: FileIdentity, options: IngestOptions, signal?: AbortSignal, onOcrPage?: OcrRequest['onPage']): Promise<IngestOutcome> {
  try {
    const parser = parserFor(path);
    if (!parser) throw unsupportedFormat();
    const ocr: OcrRequest | undefined = options.ocr ? { limitMs: options.max_document_ms, ...(onOcrPage ? { onPage: onOcrPage } : {}) } : undefined;
    const parsed = await parser.parse(bytes, { path, signal, ...(ocr ? { ocr } : {}) });
    const id: DocumentIdentity = { ...identity, path, content_hash: contentHash(bytes), byte_size: bytes.length };
    const document = buildDocument(parsed, id, options.chunking);
    refuseSecrets(document);
    return { ok: true, document };
  } catch (err) {
    if (signal?.aborted) throw err;
    return { ok: false, failure: failure(path, err) };
  }
}

/** A file whose bytes hash to what the caller already has a document for: nothing was parsed. */
export interface UnchangedFile {
  ok: 'unchanged';
  path: string;
  content_hash: string;
  byte_size: number;
  mtime_ms: number;
}

export interface IngestFileOptions {
  signal?: AbortSignal;
  /** Content hash of the document the caller already has for this path: parse only if it differs. */
  knownHash?: string;
  /** Read with blocking calls (worker threads only). */
  syncRead?: boolean;
  /** Called once the file is read and known to need parsing (a worker starts pdf.js there, off the document's clock). */
  beforeParse?: () => Promise<void> | undefined;
  /** A scanned page's OCR begins (ingest.ocr on): for the build's progress. */
  onOcrPage?: OcrRequest['onPage'];
}

export async function ingestFile(path: string, identity: FileIdentity, options: IngestOptions, run?: Omit<IngestFileOptions, 'knownHash'>): Promise<IngestOutcome>;
export async function ingestFile(path: string, identity: FileIdentity, options: IngestOptions, run: IngestFileOptions): Promise<IngestOutcome | UnchangedFile>;
export async function ingestFile(path: string, identity: FileIdentity, options: IngestOptions, run: IngestFileOptions = {}): Promise<IngestOutcome | UnchangedFile> {
  let file: FileBytes;
  try {
    file = run.syncRead ? readDocumentBytesSync(path, options) : await readDocumentBytes(path, options);
  } catch (err) {
    return { ok: false, failure: failure(path, err) };
  }
  if (run.knownHash !== undefined) {
    const hash = contentHash(file.bytes);
    if (hash === run.knownHash) return { ok: 'unchanged', path, content_hash: hash, byte_size: file.bytes.length, mtime_ms: file.mtime_ms };
  }
  await run.beforeParse?.();
  const outcome = await ingestBytes(path, file.bytes, identity, options, run.signal, run.onOcrPage);
  return outcome.ok ? { ...outcome, mtime_ms: file.mtime_ms } : outcome;
}
