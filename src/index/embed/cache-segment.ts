import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import { SMALL_FILE_BYTES } from '../../common/durable-write';
import { StoreError, errorMessage } from '../../common/errors';
import { readFully, readFullySync } from '../../common/read-file';
import { FileMemo } from '../ingest/file-memo';
import { KEY_BYTES as KEY, SortedKeys, compareKeys, prefixAt } from './sorted-keys';

/**
 * One embedding-cache segment file. Format 2 (`seg-*.dqe`): `DQEC`, u32 version, u32 dims, u32 count,
 * then the count 32-byte keys sorted bytewise, then the vectors (dims × float32 LE each) in the same
 * order. Format 1 (`seg-*.bin`, records of [key][vector]) is still read.
 */
export const EMBEDDING_CACHE_FORMAT_VERSION = 2;
const MAGIC = 'DQEC';
const HEADER = 16;

export interface Segment {
  file: string;
  count: number;
  /** The key block, once read (a few keys are found through small reads without it). */
  keys: SortedKeys | null;
  /** Byte offset of the vector block in the file (format 2). */
  vectorsAt: number;
  /** The vectors, once read (format 1 segments are read whole). */
  vectors: Float32Array | null;
  /**
   * The vectors by row, when this cache instance wrote the segment from vectors it still holds: then
   * every key of it is in the instance's `fresh` map, and nothing need be read back from the file.
   */
  held?: readonly Float32Array[];
}

/**
 * Key blocks of the segments this process has read (the last 256): segments never change once written,
 * and each build opens the cache afresh. The file's inode, size and mtime are checked before reuse.
 */
const openedKeys = new FileMemo<{ dims: number; keys: SortedKeys }>(256);

export function rememberKeys(file: string, dims: number, keys: SortedKeys): void {
  openedKeys.remember(file, { dims, keys });
}

export function forgetKeys(file: string): void {
  openedKeys.forget(file);
}

function ioError(file: string, err: unknown): StoreError {
  return new StoreError('store_io', `cannot read the embedding cache ${file}: ${errorMessage(err)}`, { cause: err });
}

/** The header of a format-2 segment (one 16-byte read), or null when it is not one of `dims` dimensions. */
export function openSegment(file: string, dims: number): Segment | null {
  const fd = fsSync.openSync(file, 'r');
  try {
    const { size } = fsSync.fstatSync(fd);
    const head = Buffer.alloc(HEADER);
    if (fsSync.readSync(fd, head, 0, HEADER, 0) !== HEADER) return null;
    if (head.toString('latin1', 0, 4) !== MAGIC || head.readUInt32LE(4) !== EMBEDDING_CACHE_FORMAT_VERSION || head.readUInt32LE(8) !== dims) return null;
    const count = head.readUInt32LE(12);
    if (size !== HEADER + count * (KEY + dims * 4)) return null;
    const known = openedKeys.get(file);
    return { file, count, keys: known?.dims === dims && known.keys.count === count ? known.keys : null, vectorsAt: HEADER + count * KEY, vectors: null };
  } finally {
    fsSync.closeSync(fd);
  }
}

/** Format 1: records of [key][vector], read whole and sorted in memory. */
export async function readFormat1(file: string, dims: number): Promise<Segment | null> {
  const buf = await fs.readFile(file);
  const rec = KEY + dims * 4;
  if (buf.length % rec !== 0) return null;
  const count = buf.length / rec;
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => buf.compare(buf, b * rec, b * rec + KEY, a * rec, a * rec + KEY));
  const keys = Buffer.alloc(count * KEY);
  const vectors = new Float32Array(count * dims);
  order.forEach((r, i) => {
    buf.copy(keys, i * KEY, r * rec, r * rec + KEY);
    for (let j = 0; j < dims; j++) vectors[i * dims + j] = buf.readFloatLE(r * rec + KEY + j * 4);
  });
  return { file, count, keys: new SortedKeys(keys, count), vectorsAt: 0, vectors };
}

/** The segment's key block, read whole once (blocking: 320 KB per 10,000 vectors). */
export function segmentKeys(seg: Segment, dims: number): SortedKeys {
  if (seg.keys) return seg.keys;
  const bytes = Buffer.allocUnsafeSlow(seg.count * KEY);
  const fd = fsSync.openSync(seg.file, 'r');
  try {
    if (!readFullySync(fd, bytes, HEADER)) throw new Error('file ended early');
  } catch (err) {
    throw ioError(seg.file, err);
  } finally {
    fsSync.closeSync(fd);
  }
  seg.keys = new SortedKeys(bytes, seg.count);
  rememberKeys(seg.file, dims, seg.keys);
  return seg.keys;
}

/**
 * Half the number of keys read around a key's expected place. Keys are SHA-256 digests, so uniform: a
 * key of value x sits near x × count, its place off by at most sqrt(count) / 2 in one standard
 * deviation; three of them miss 0.3% of the time, and a miss only costs reading the whole block.
 */
function windowHalf(count: number): number {
  return Math.ceil(1.5 * Math.sqrt(count)) + 16;
}

/**
 * Rows of the wanted keys (32 bytes each at `at[n]` of `wanted`) in `seg`, -1 where absent. A few keys
 * in a large segment are found by reading a small window of keys around each one's expected place (a
 * one-file edit's 10 look-ups read 10 × 31 KB, not a 100k-vector segment's 3.2 MB key block).
 */
export function findRows(seg: Segment, dims: number, wanted: Uint8Array, at: readonly number[]): Int32Array {
  const rows = new Int32Array(at.length).fill(-1);
  const half = windowHalf(seg.count);
  if (!seg.keys && at.length * (2 * half + 1) * 2 < seg.count && findInWindows(seg, wanted, at, half, rows)) return rows;
  const keys = segmentKeys(seg, dims);
  at.forEach((a, n) => (rows[n] = keys.indexOf(wanted, a)));
  return rows;
}

/** Fills `rows` through windows; false when a key fell outside its window (then nothing is decided). */
function findInWindows(seg: Segment, wanted: Uint8Array, at: readonly number[], half: number, rows: Int32Array): boolean {
  const window = Buffer.allocUnsafe((2 * half + 1) * KEY);
  const fd = fsSync.openSync(seg.file, 'r');
  try {
    for (const [n, a] of at.entries()) {
      const expected = Math.floor((prefixAt(wanted, a) / 2 ** 32) * seg.count);
      const lo = Math.max(0, expected - half);
      const hi = Math.min(seg.count, expected + half + 1);
      const bytes = (hi - lo) * KEY;
      if (fsSync.readSync(fd, window, 0, bytes, HEADER + lo * KEY) !== bytes) throw new Error('file ended early');
      // Outside the window unless the window starts at the first key or ends at the last one.
      if ((lo > 0 && compareKeys(wanted, a, window, 0) < 0) || (hi < seg.count && compareKeys(wanted, a, window, bytes - KEY) > 0)) return false;
      const i = new SortedKeys(window.subarray(0, bytes), hi - lo).indexOf(wanted, a);
      if (i >= 0) rows[n] = lo + i;
    }
    return true;
  } catch (err) {
    throw ioError(seg.file, err);
  } finally {
    fsSync.closeSync(fd);
  }
}

/** Reads all of `target` at `position`. */
async function readAt(h: fs.FileHandle, target: Uint8Array, position: number): Promise<void> {
  if (!(await readFully(h, target, position))) throw new Error('file ended early');
}

/** Row reads in flight at once (the thread pool has four threads; more keep it fed). */
const ROWS_IN_FLIGHT = 16;

/**
 * Single rows of a segment, through one open file (blocking reads when they add up to little), as views
 * on one block: `into` (room for them all) when given, else a new one.
 */
export async function readRows(seg: Segment, dims: number, rows: readonly number[], into?: Float32Array): Promise<Float32Array[]> {
  const rowBytes = dims * 4;
  // Views on one block: a separate buffer per row (4 KB each) was thousands of allocations a batch.
  const block = into ?? new Float32Array(rows.length * dims);
  const out = rows.map((_, n) => block.subarray(n * dims, (n + 1) * dims));
  try {
    if (rows.length * rowBytes < SMALL_FILE_BYTES) {
      const fd = fsSync.openSync(seg.file, 'r');
      try {
        rows.forEach((r, n) => {
          if (!readFullySync(fd, new Uint8Array(out[n]!.buffer, out[n]!.byteOffset, rowBytes), seg.vectorsAt + r * rowBytes)) throw new Error('file ended early');
        });
      } finally {
        fsSync.closeSync(fd);
      }
    } else {
      // Many rows (a build's batch): in file order, several reads in flight. One at a time, each
      // waited for, 8,192 rows took a quarter of a second idle and many seconds on a busy machine.
      const order = rows.map((_, n) => n).sort((a, b) => rows[a]! - rows[b]!);
      const h = await fs.open(seg.file, 'r');
      try {
        let next = 0;
        const reader = async () => {
          for (let k = next++; k < order.length; k = next++) {
            const n = order[k]!;
            await readAt(h, new Uint8Array(out[n]!.buffer, out[n]!.byteOffset, rowBytes), seg.vectorsAt + rows[n]! * rowBytes);
          }
        };
        await Promise.all(Array.from({ length: Math.min(ROWS_IN_FLIGHT, order.length) }, reader));
      } finally {
        await h.close();
      }
    }
  } catch (err) {
    throw ioError(seg.file, err);
  }
  return out;
}

/** Bytes of the vector block read at a time by sweepRows. */
const SWEEP_BYTES = 1024 * 1024;

/**
 * Rows of a segment, most of it wanted, copied into `into` (room for them all; views on it returned) in
 * one pass over the vector block, a megabyte at a time: the same reads as taking the block whole,
 * without holding it (41 MB at 10k vectors, read again for each batch of a build).
 */
export async function sweepRows(seg: Segment, dims: number, rows: readonly number[], into: Float32Array): Promise<Float32Array[]> {
  const rowBytes = dims * 4;
  const out = rows.map((_, n) => into.subarray(n * dims, (n + 1) * dims));
  const order = rows.map((_, n) => n).sort((a, b) => rows[a]! - rows[b]!);
  const perChunk = Math.max(1, Math.floor(SWEEP_BYTES / rowBytes));
  const chunk = new Float32Array(perChunk * dims);
  const h = await fs.open(seg.file, 'r');
  try {
    for (let k = 0; k < order.length; ) {
      // The chunk starting at the next wanted row: every wanted row in it is copied out.
      const first = rows[order[k]!]!;
      const count = Math.min(perChunk, seg.count - first);
      await readAt(h, new Uint8Array(chunk.buffer, 0, count * rowBytes), seg.vectorsAt + first * rowBytes);
      for (; k < order.length && rows[order[k]!]! < first + count; k++) {
        const r = rows[order[k]!]! - first;
        out[order[k]!]!.set(chunk.subarray(r * dims, (r + 1) * dims));
      }
    }
  } catch (err) {
    throw ioError(seg.file, err);
  } finally {
    await h.close();
  }
  return out;
}

/** The segment's whole vector block. */
export async function readVectors(seg: Segment, dims: number): Promise<Float32Array> {
  const out = new Float32Array(seg.count * dims);
  const h = await fs.open(seg.file, 'r');
  try {
    await readAt(h, new Uint8Array(out.buffer), seg.vectorsAt);
  } catch (err) {
    throw ioError(seg.file, err);
  } finally {
    await h.close();
  }
  // Stored little-endian; every platform Node runs on reads Float32Array little-endian.
  return out;
}

/** Bytes of a segment before its vectors: the header, then room for the `count` keys. */
export function headerAndKeys(dims: number, count: number): Buffer {
  const buf = Buffer.allocUnsafeSlow(HEADER + count * KEY);
  writeHeader(buf, dims, count);
  return buf;
}

function writeHeader(buf: Buffer, dims: number, count: number): void {
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(EMBEDDING_CACHE_FORMAT_VERSION, 4);
  buf.writeUInt32LE(dims, 8);
  buf.writeUInt32LE(count, 12);
}

/** A format-2 segment's bytes: `count` vectors whose keys (in order) `keyInto` writes and `vectorAt` gives. */
export function encodeSegment(dims: number, count: number, keyInto: (i: number, out: Buffer, at: number) => void, vectorAt: (i: number) => Float32Array): Buffer {
  const vectorsAt = HEADER + count * KEY;
  // A buffer of its own (never Node's shared pool), so the vector block is 4-byte aligned for the view;
  // not zeroed, as every byte of it is written below.
  const buf = Buffer.allocUnsafeSlow(vectorsAt + count * dims * 4);
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  writeHeader(buf, dims, count);
  // Float32Array is little-endian on every platform Node runs on, as the format requires.
  const vectors = new Float32Array(bytes.buffer, vectorsAt, count * dims);
  for (let i = 0; i < count; i++) {
    const v = vectorAt(i);
    if (v.length !== dims) throw new Error(`vector of ${v.length} dimensions in a ${dims}-dimension cache`);
    keyInto(i, buf, HEADER + i * KEY);
    vectors.set(v, i * dims);
  }
  return buf;
}

/** The segment a just-written file is, its key block taken from the bytes written (`head`: header and keys). */
export function writtenSegment(file: string, dims: number, head: Buffer, count: number, held?: readonly Float32Array[]): Segment {
  const vectorsAt = HEADER + count * KEY;
  const keys = new SortedKeys(Buffer.from(head.subarray(HEADER, vectorsAt)), count);
  rememberKeys(file, dims, keys);
  return { file, count, keys, vectorsAt, vectors: null, held };
}

/** Rows of a segment read in order, a window of them at a time, through one open file. */
export class RowReader {
  private h: fs.FileHandle | null = null;
  private first = 0;
  private rows = 0;
  private readonly window: Float32Array;

  constructor(
    private readonly seg: Segment,
    private readonly dims: number,
    windowRows = 256,
  ) {
    this.window = new Float32Array(Math.min(windowRows, seg.count) * dims);
  }

  /** Whether `row` is at hand (else `load` it first). */
  has(row: number): boolean {
    return row >= this.first && row < this.first + this.rows;
  }

  /** Reads the window that starts at `row`. */
  async load(row: number): Promise<void> {
    try {
      this.h ??= await fs.open(this.seg.file, 'r');
      this.first = row;
      this.rows = Math.min(this.window.length / this.dims, this.seg.count - row);
      await readAt(this.h, new Uint8Array(this.window.buffer, 0, this.rows * this.dims * 4), this.seg.vectorsAt + row * this.dims * 4);
    } catch (err) {
      this.rows = 0;
      throw ioError(this.seg.file, err);
    }
  }

  /** The row, a view valid until the next `load`. */
  at(row: number): Float32Array {
    const d = this.dims;
    return this.window.subarray((row - this.first) * d, (row - this.first + 1) * d);
  }

  async close(): Promise<void> {
    await this.h?.close();
    this.h = null;
  }
}
