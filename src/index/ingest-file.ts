import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { buildDocument, type DocumentIdentity } from './document-builder';
import { IngestError, errorMessage } from './errors';
import type { Document, FailedDocument, IngestOptions } from './model';
import { parserFor, SUPPORTED_EXTENSIONS } from './parsers/registry';

export type IngestOutcome = { ok: true; document: Document } | { ok: false; failure: FailedDocument };

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

/** Reads the file's bytes, failing early on what can be known before parsing. */
export async function readDocumentBytes(path: string, options: IngestOptions): Promise<Uint8Array> {
  const parser = parserFor(path);
  if (!parser) throw unsupportedFormat();
  let size: number;
  try {
    const st = await fs.stat(path);
    if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    size = st.size;
  } catch (err) {
    throw readFailure(err);
  }
  if (size > options.max_file_bytes) {
    throw new IngestError('read', 'too_large', `file is ${size} bytes, over the ${options.max_file_bytes}-byte limit`);
  }
  if (size === 0) throw new IngestError('read', 'empty', 'file is empty (0 bytes)');
  try {
    return await fs.readFile(path);
  } catch (err) {
    throw readFailure(err);
  }
}

/**
 * One file → a complete document, or a failure entry saying what was wrong. Never throws for a bad file;
 * only cancellation propagates.
 */
export async function ingestBytes(path: string, bytes: Uint8Array, identity: FileIdentity, options: IngestOptions, signal?: AbortSignal): Promise<IngestOutcome> {
  try {
    const parser = parserFor(path);
    if (!parser) throw unsupportedFormat();
    const parsed = await parser.parse(bytes, { path, signal });
    const id: DocumentIdentity = { ...identity, path, content_hash: contentHash(bytes), byte_size: bytes.length };
    return { ok: true, document: buildDocument(parsed, id, options.chunking) };
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
}

export async function ingestFile(path: string, identity: FileIdentity, options: IngestOptions, signal?: AbortSignal): Promise<IngestOutcome>;
export async function ingestFile(path: string, identity: FileIdentity, options: IngestOptions, signal: AbortSignal | undefined, knownHash: string | undefined): Promise<IngestOutcome | UnchangedFile>;
export async function ingestFile(path: string, identity: FileIdentity, options: IngestOptions, signal?: AbortSignal, knownHash?: string): Promise<IngestOutcome | UnchangedFile> {
  let bytes: Uint8Array;
  try {
    bytes = await readDocumentBytes(path, options);
  } catch (err) {
    return { ok: false, failure: failure(path, err) };
  }
  if (knownHash !== undefined) {
    const hash = contentHash(bytes);
    if (hash === knownHash) return { ok: 'unchanged', path, content_hash: hash };
  }
  return ingestBytes(path, bytes, identity, options, signal);
}
