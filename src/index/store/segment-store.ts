import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Bm25Data } from '../search/bm25-build';
import { readPack } from './binary-pack';
import { SEGMENT_FILES_1, type SegmentFormat, segmentFileNames } from './segment-format';
import { StoreError, errorMessage } from '../../common/errors';
import { readVersioned } from '../../common/json-file';
import type { Document } from '../../shared/document';
import { DocumentsPayload, SEGMENT_FORMAT_VERSION } from './snapshot-manifest';
import type { StagedFolder } from './staged-folder';
import { PackedTerms, type TermTable } from '../search/term-table';
import { SMALL_FILE_BYTES } from '../../common/durable-write';
import { readFully, readFullySync } from '../../common/read-file';

/**
 * A segment is one immutable set of index files for some documents (doc_id order, blocks contiguous):
 * their texts and structure, their BM25F postings over text and headings (local block numbers) and
 * their L2-normalised vector rows (absent in keyword-only snapshots); which files, by its format, is in
 * segment-format.ts. Format 2 is written by segment-writer.ts and read by segment-reader.ts; this file
 * reads format 1 and what both share. A snapshot holds its segments in `segments/<segment id>/`;
 * segments the parent already had are hard-linked into the new snapshot, never copied or rewritten, so
 * each snapshot folder stays complete on its own and deleting one never breaks another.
 */
export const SEGMENT_FILES = SEGMENT_FILES_1;

export function segmentDir(snapshotFolder: string, segmentId: string): string {
  return path.join(snapshotFolder, 'segments', segmentId);
}

/** Sortable and unique: `g<base36 ms>-<6 hex>`. */
export function newSegmentId(now = Date.now()): string {
  return `g${now.toString(36)}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Errors for which a hard link cannot be made but a copy can (other device, file system without links). */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/**
 * Makes a parent's segment part of a staged snapshot: a hard link per file (a copy where links are
 * impossible). The parent's files are durable already; the new entries are synced with the folder.
 */
export async function linkSegment(staged: StagedFolder, fromFolder: string, toFolder: string, format: SegmentFormat, withVectors: boolean): Promise<void> {
  staged.mkdir(toFolder);
  const names = segmentFileNames(format, withVectors);
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
  const file = path.join(folder, SEGMENT_FILES.keyword);
  const pack = await readPack(file);
  const a = pack.arrays;
  let terms: TermTable;
  if (a.termChars instanceof Uint16Array && a.termStarts instanceof Uint32Array) {
    try {
      terms = new PackedTerms(a.termChars, a.termStarts);
    } catch (err) {
      throw new StoreError('store_corrupt', `${file}: ${errorMessage(err)}`);
    }
  } else {
    // Packs of format 1 listed their terms in the JSON header.
    const listed = (pack.meta as { terms?: unknown } | null)?.terms;
    if (!Array.isArray(listed) || !listed.every((t) => typeof t === 'string')) throw new StoreError('store_corrupt', `${file} has no term list`);
    terms = listed as string[];
  }
  for (const name of ['offsets', 'blocks', 'docLengths'] as const) if (!(a[name] instanceof Uint32Array)) throw new StoreError('store_corrupt', `${file} lacks ${name}`);
  if (!(a.tfs instanceof Uint16Array)) throw new StoreError('store_corrupt', `${file} lacks tfs`);
  const blocks = a.blocks as Uint32Array;
  const docLengths = a.docLengths as Uint32Array;
  let headTfs: Uint16Array;
  let headLengths: Uint32Array;
  if (pack.formatVersion >= 3) {
    if (!(a.headTfs instanceof Uint16Array) || a.headTfs.length !== blocks.length) throw new StoreError('store_corrupt', `${file} lacks headTfs`);
    if (!(a.headLengths instanceof Uint32Array) || a.headLengths.length !== docLengths.length) throw new StoreError('store_corrupt', `${file} lacks headLengths`);
    headTfs = a.headTfs;
    headLengths = a.headLengths;
  } else {
    // Packs before format 3 indexed no headings: an empty field, which scores as text-only BM25, until
    // the next build re-indexes them (their snapshot names an older keyword tokenizer).
    headTfs = new Uint16Array(blocks.length);
    headLengths = new Uint32Array(docLengths.length);
  }
  return { terms, offsets: a.offsets as Uint32Array, blocks, tfs: a.tfs as Uint16Array, headTfs, docLengths, headLengths };
}

/** A run of a segment's vector rows and where they go: [first local row, first target row, rows]. */
export type RowRun = readonly [number, number, number];

/** Largest single read; buffers per scattered read (IOV_MAX is 1024 on Linux); reads in flight at once. */
const READ_PIECE = 16 * 1024 * 1024;
const VIEWS_PER_READ = 1024;
const READS_IN_FLIGHT = 8;

/** One read of a contiguous range of the file, scattered into several places of the target. */
interface ScatterRead {
  position: number;
  views: Uint8Array[];
}

/**
 * Groups runs into reads: runs next to each other in the file become one scattered read (readv) into
 * their separate places, up to READ_PIECE bytes and VIEWS_PER_READ places each. A segment whose live
 * documents alternate with other segments' ones in doc_id order so costs a few reads, not one per
 * document (a thread-pool trip each: 1,000 of them for 10k blocks).
 */
function planReads(runs: readonly RowRun[], rowBytes: number, bytes: Uint8Array): ScatterRead[] {
  const reads: ScatterRead[] = [];
  let cur: ScatterRead | null = null;
  let curEnd = -1;
  let curBytes = 0;
  for (const [local, to, count] of [...runs].sort((a, b) => a[0] - b[0])) {
    for (let done = 0; done < count * rowBytes; done += READ_PIECE) {
      const position = local * rowBytes + done;
      const length = Math.min(READ_PIECE, count * rowBytes - done);
      const view = bytes.subarray(to * rowBytes + done, to * rowBytes + done + length);
      if (cur && position === curEnd && cur.views.length < VIEWS_PER_READ && curBytes + length <= READ_PIECE) {
        cur.views.push(view);
        curBytes += length;
      } else {
        cur = { position, views: [view] };
        reads.push(cur);
        curBytes = length;
      }
      curEnd = position + length;
    }
  }
  return reads;
}

/** The same with blocking calls, for a few rows (a one-file edit carries one small segment's rows). */
function scatterSync(file: string, expectedSize: number, reads: readonly ScatterRead[]): void {
  let fd: number;
  try {
    fd = fsSync.openSync(file, 'r');
  } catch (err) {
    throw new StoreError('store_corrupt', `${file} unreadable: ${errorMessage(err)}`, { cause: err });
  }
  try {
    const { size } = fsSync.fstatSync(fd);
    if (size !== expectedSize) throw new StoreError('store_corrupt', `${file} has ${size} bytes, expected ${expectedSize}`);
    for (const { position, views } of reads) {
      let pos = position;
      for (const v of views) {
        if (!readFullySync(fd, v, pos)) throw new StoreError('store_corrupt', `${file} ended early`);
        pos += v.length;
      }
    }
  } finally {
    fsSync.closeSync(fd);
  }
}

/**
 * Reads runs of a segment's rows straight into their place in `target` (rows × dims): positional,
 * scattered reads, several in flight, no intermediate buffer (on the machines measured, a second copy of
 * the vectors costs as much as reading them).
 */
export async function scatterSegmentVectors(folder: string, rows: number, dims: number, runs: readonly RowRun[], target: Float32Array): Promise<void> {
  const file = path.join(folder, SEGMENT_FILES.vectors);
  const rowBytes = dims * 4;
  const bytes = new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
  const wanted = runs.reduce((n, r) => n + r[2], 0) * rowBytes;
  if (wanted < SMALL_FILE_BYTES) return scatterSync(file, rows * rowBytes, planReads(runs, rowBytes, bytes));
  let h: fs.FileHandle;
  try {
    h = await fs.open(file, 'r');
  } catch (err) {
    throw new StoreError('store_corrupt', `${file} unreadable: ${errorMessage(err)}`, { cause: err });
  }
  try {
    const { size } = await h.stat();
    if (size !== rows * rowBytes) throw new StoreError('store_corrupt', `${file} has ${size} bytes, expected ${rows * rowBytes}`);
    const reads = planReads(runs, rowBytes, bytes);
    const readAll = async ({ position, views }: ScatterRead) => {
      let { bytesRead } = await h.readv(views, position);
      // A short read (rare for regular files): the rest view by view.
      let pos = position;
      for (const v of views) {
        if (bytesRead >= v.length) {
          bytesRead -= v.length;
          pos += v.length;
          continue;
        }
        if (!(await readFully(h, v.subarray(bytesRead), pos + bytesRead))) throw new StoreError('store_corrupt', `${file} ended early`);
        bytesRead = 0;
        pos += v.length;
      }
    };
    let next = 0;
    const worker = async () => {
      while (next < reads.length) await readAll(reads[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, reads.length) }, worker));
  } finally {
    await h.close();
  }
}
