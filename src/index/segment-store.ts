import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Bm25Data } from './bm25-index';
import { encodePack, readPack } from './binary-pack';
import { StoreError, errorMessage } from './errors';
import { readVersioned } from './json-file';
import type { Document } from './model';
import { DocumentsPayload, SEGMENT_FORMAT_VERSION } from './snapshot-manifest';
import type { StagedFolder } from './staged-folder';

/**
 * A segment is one immutable set of index files for some documents: `documents.json` (the documents,
 * doc_id order, blocks contiguous), `keyword.pack` (their BM25 postings, local block numbers) and
 * `vectors.f32` (their L2-normalised rows, same order; absent in keyword-only snapshots). A snapshot
 * holds its segments in `segments/<segment id>/`; segments the parent already had are hard-linked into
 * the new snapshot, never copied or rewritten, so each snapshot folder stays complete on its own and
 * deleting one never breaks another.
 */
export const SEGMENT_FILES = { documents: 'documents.json', keyword: 'keyword.pack', vectors: 'vectors.f32' } as const;

export function segmentDir(snapshotFolder: string, segmentId: string): string {
  return path.join(snapshotFolder, 'segments', segmentId);
}

/** Sortable and unique: `g<base36 ms>-<6 hex>`. */
export function newSegmentId(now = Date.now()): string {
  return `g${now.toString(36)}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Writes a segment's files into a staged snapshot folder (made durable by its `sync()`). */
export async function writeSegment(staged: StagedFolder, folder: string, documents: readonly Document[], bm25: Bm25Data, matrix: Float32Array | null): Promise<void> {
  const write = async (name: string, content: string | Uint8Array) => {
    try {
      await staged.write(path.join(folder, name), content);
    } catch (err) {
      throw new StoreError('store_io', `cannot write ${path.join(folder, name)}: ${errorMessage(err)}`, { cause: err });
    }
  };
  await write(SEGMENT_FILES.documents, `${JSON.stringify({ formatVersion: SEGMENT_FORMAT_VERSION, documents })}\n`);
  await write(SEGMENT_FILES.keyword, encodePack({ terms: bm25.terms }, { offsets: bm25.offsets, blocks: bm25.blocks, tfs: bm25.tfs, docLengths: bm25.docLengths }));
  if (matrix) await write(SEGMENT_FILES.vectors, new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength));
}

/** Errors for which a hard link cannot be made but a copy can (other device, file system without links). */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/**
 * Makes a parent's segment part of a staged snapshot: a hard link per file (a copy where links are
 * impossible). The parent's files are durable already; the new entries are synced with the folder.
 */
export async function linkSegment(staged: StagedFolder, fromFolder: string, toFolder: string, withVectors: boolean): Promise<void> {
  staged.mkdir(toFolder);
  const names = [SEGMENT_FILES.documents, SEGMENT_FILES.keyword, ...(withVectors ? [SEGMENT_FILES.vectors] : [])];
  for (const name of names) {
    const from = path.join(fromFolder, name);
    const to = path.join(toFolder, name);
    try {
      fsSync.linkSync(from, to);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (!NO_LINK.has(code)) throw new StoreError('store_io', `cannot link ${from} into the new snapshot: ${errorMessage(err)}`, { cause: err });
      await fs.copyFile(from, to);
      staged.track(to);
    }
  }
}

export async function readSegmentDocuments(folder: string): Promise<Document[]> {
  const file = path.join(folder, SEGMENT_FILES.documents);
  const payload = await readVersioned(file, SEGMENT_FORMAT_VERSION, DocumentsPayload);
  if (!payload) throw new StoreError('store_corrupt', `${file} is missing`);
  return payload.documents;
}

export async function readSegmentKeyword(folder: string): Promise<Bm25Data> {
  const pack = await readPack(path.join(folder, SEGMENT_FILES.keyword));
  const a = pack.arrays;
  return {
    terms: (pack.meta as { terms: string[] }).terms,
    offsets: a.offsets as Uint32Array,
    blocks: a.blocks as Uint32Array,
    tfs: a.tfs as Uint16Array,
    docLengths: a.docLengths as Uint32Array,
  };
}

/** A run of a segment's vector rows and where they go: [first local row, first target row, rows]. */
export type RowRun = readonly [number, number, number];

/** Largest single read; and how many reads are in flight at once (the thread pool overlaps them). */
const READ_PIECE = 16 * 1024 * 1024;
const READS_IN_FLIGHT = 8;

/**
 * Reads runs of a segment's rows straight into their place in `target` (rows × dims): positional reads,
 * several in flight, no intermediate buffer (on the machines measured, a second copy of the vectors
 * costs as much as reading them).
 */
export async function scatterSegmentVectors(folder: string, rows: number, dims: number, runs: readonly RowRun[], target: Float32Array): Promise<void> {
  const file = path.join(folder, SEGMENT_FILES.vectors);
  const rowBytes = dims * 4;
  const bytes = new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
  let h: fs.FileHandle;
  try {
    h = await fs.open(file, 'r');
  } catch (err) {
    throw new StoreError('store_corrupt', `${file} unreadable: ${errorMessage(err)}`, { cause: err });
  }
  try {
    const { size } = await h.stat();
    if (size !== rows * rowBytes) throw new StoreError('store_corrupt', `${file} has ${size} bytes, expected ${rows * rowBytes}`);
    // [file position, target offset, length] pieces of at most READ_PIECE bytes.
    const pieces: Array<[number, number, number]> = [];
    for (const [local, to, count] of runs) {
      for (let done = 0; done < count * rowBytes; done += READ_PIECE) pieces.push([local * rowBytes + done, to * rowBytes + done, Math.min(READ_PIECE, count * rowBytes - done)]);
    }
    let next = 0;
    const worker = async () => {
      while (next < pieces.length) {
        const [position, offset, length] = pieces[next++]!;
        let done = 0;
        while (done < length) {
          const { bytesRead } = await h.read(bytes, offset + done, length - done, position + done);
          if (bytesRead === 0) throw new StoreError('store_corrupt', `${file} ended early`);
          done += bytesRead;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, pieces.length) }, worker));
  } finally {
    await h.close();
  }
}
