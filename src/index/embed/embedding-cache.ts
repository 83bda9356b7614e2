import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SMALL_FILE_BYTES, writeDurable } from '../../common/durable-write';
import { FileMemo } from '../ingest/file-memo';
import { readFully, readFullySync } from '../../common/read-file';
import { StoreError, errorMessage } from '../../common/errors';
import { futureVersion } from '../../common/json-file';

/**
 * Persistent embedding cache: an unchanged block is never embedded twice. One folder per
 * (endpoint family, model, dimensions); entries keyed by sha256 of the normalised text (NFC, white space
 * folded). Each build that embeds something adds one segment file, written atomically, so a crash loses
 * at most the segment being written and never damages others.
 *
 * Segment format 2 (`seg-*.dqe`): `DQEC`, u32 version, u32 dims, u32 count, then the count 32-byte keys
 * sorted bytewise, then the vectors (dims × float32 LE each) in the same order. A lookup reads only the
 * key blocks and binary-searches them; vectors are read for the hits alone (the whole block when most
 * of a segment is wanted). A one-file edit of a large collection so costs a few small reads, not a load
 * of every vector ever embedded. Format 1 (`seg-*.bin`, records of [key][vector]) is still read.
 */
export const EMBEDDING_CACHE_FORMAT_VERSION = 2;
const MAGIC = 'DQEC';
const HEADER = 16;
const KEY = 32;
/**
 * Segments are grouped in size tiers of a factor TIER_FANOUT (1–3 vectors, 4–15, 16–63, …); when a tier
 * holds TIER_FANOUT segments they are merged into one of the next tier. A folder so holds at most
 * (TIER_FANOUT − 1) segments per tier, and a vector is rewritten about once per tier it climbs: a
 * one-file edit adds a small segment and merges only small ones.
 */
export const TIER_FANOUT = 4;

export function cacheTier(count: number): number {
  let tier = 0;
  for (let c = count; c >= TIER_FANOUT; c = Math.floor(c / TIER_FANOUT)) tier++;
  return tier;
}

export function normalizeForEmbedding(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

export function embeddingKey(text: string): string {
  return crypto.createHash('sha256').update(normalizeForEmbedding(text)).digest('hex');
}

interface Segment {
  file: string;
  count: number;
  /** count × 32 bytes, sorted. */
  keys: Buffer;
  /** Byte offset of the vector block in the file (format 2). */
  vectorsAt: number;
  /** The vectors, once read (format 1 segments are read whole). */
  vectors: Float32Array | null;
}

/** Index of `key` in a sorted key block, or -1. */
function find(keys: Buffer, count: number, key: Buffer): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = keys.compare(key, 0, KEY, mid * KEY, mid * KEY + KEY);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Reads all of `target` at `position`. */
async function readAt(h: fs.FileHandle, target: Uint8Array, position: number): Promise<void> {
  if (!(await readFully(h, target, position))) throw new Error('file ended early');
}

/**
 * Key blocks of the segments this process has opened (the last 256): segments never change once written, and
 * each build opens the cache afresh (reading 320 KB of keys per 10,000 vectors each time). The file's
 * inode, size and mtime are checked before a block is reused.
 */
const openedKeys = new FileMemo<{ dims: number; count: number; keys: Buffer; vectorsAt: number }>(256);

export class EmbeddingCache {
  private segments: Segment[] | null = null;
  /** Vectors added by this process (not yet in a segment this instance has read). */
  private readonly fresh = new Map<string, Float32Array>();
  /** meta.json is known to be on disk as it should be. */
  private metaWritten = false;
  readonly dir: string;
  /** Vector size: the requested `dimensions`, or learnt from the first vectors (then kept in meta.json). */
  dims: number | null;

  constructor(
    root: string,
    readonly family: string,
    readonly model: string,
    requestedDims: number | null,
  ) {
    const id = crypto.createHash('sha256').update(`${family}\n${model}\n${requestedDims ?? 'native'}`).digest('hex').slice(0, 16);
    this.dir = path.join(root, id);
    this.dims = requestedDims;
  }

  private async open(): Promise<Segment[]> {
    if (this.segments) return this.segments;
    const segments: Segment[] = [];
    let meta: { dims?: unknown; formatVersion?: unknown } | null = null;
    try {
      meta = JSON.parse(await fs.readFile(path.join(this.dir, 'meta.json'), 'utf8')) as { dims?: unknown; formatVersion?: unknown };
    } catch {
      // No meta yet (or a damaged one, rewritten with the next segment): nothing cached for this model.
    }
    // A cache folder a newer DocQA arranged is not this one's to read or to add to (its meta would be replaced).
    if (typeof meta?.formatVersion === 'number' && meta.formatVersion > EMBEDDING_CACHE_FORMAT_VERSION) {
      throw futureVersion(path.join(this.dir, 'meta.json'), meta.formatVersion, EMBEDDING_CACHE_FORMAT_VERSION);
    }
    if (this.dims === null && typeof meta?.dims === 'number') this.dims = meta.dims;
    if (this.dims === null) return (this.segments = segments);
    let names: string[] = [];
    try {
      names = (await fs.readdir(this.dir)).filter((n) => n.startsWith('seg-')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StoreError('store_io', `cannot read ${this.dir}: ${errorMessage(err)}`);
    }
    for (const n of names) {
      const file = path.join(this.dir, n);
      // A segment that cannot be read or has the wrong shape is skipped whole: entries are only a cache.
      const seg = n.endsWith('.dqe') ? await this.openSegment(file).catch(() => null) : n.endsWith('.bin') ? await this.readFormat1(file).catch(() => null) : null;
      if (seg) segments.push(seg);
    }
    return (this.segments = segments);
  }

  /** Header and key block of a format-2 segment (blocking reads: a few small ones per segment). */
  private async openSegment(file: string): Promise<Segment | null> {
    const known = openedKeys.get(file);
    if (known && known.dims === this.dims) return { file, count: known.count, keys: known.keys, vectorsAt: known.vectorsAt, vectors: null };
    const fd = fsSync.openSync(file, 'r');
    try {
      const st = fsSync.fstatSync(fd);
      const { size } = st;
      const head = Buffer.alloc(HEADER);
      if (fsSync.readSync(fd, head, 0, HEADER, 0) !== HEADER) return null;
      if (head.toString('latin1', 0, 4) !== MAGIC || head.readUInt32LE(4) !== EMBEDDING_CACHE_FORMAT_VERSION || head.readUInt32LE(8) !== this.dims) return null;
      const count = head.readUInt32LE(12);
      if (size !== HEADER + count * (KEY + this.dims! * 4)) return null;
      const keys = Buffer.alloc(count * KEY);
      if (!readFullySync(fd, keys, HEADER)) return null;
      openedKeys.remember(file, { dims: this.dims!, count, keys, vectorsAt: HEADER + count * KEY }, st);
      return { file, count, keys, vectorsAt: HEADER + count * KEY, vectors: null };
    } finally {
      fsSync.closeSync(fd);
    }
  }

  /** Format 1: records of [key][vector], read whole and sorted in memory. */
  private async readFormat1(file: string): Promise<Segment | null> {
    const dims = this.dims!;
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
    return { file, count, keys, vectorsAt: 0, vectors };
  }

  /** Cached vectors of the given keys (hex); keys not cached are absent from the result. */
  async getMany(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const segments = await this.open();
    const out = new Map<string, Float32Array>();
    const wanted: Array<[string, Buffer]> = [];
    for (const k of new Set(keys)) {
      const v = this.fresh.get(k);
      if (v) out.set(k, v);
      else wanted.push([k, Buffer.from(k, 'hex')]);
    }
    const dims = this.dims;
    if (dims === null) return out;
    for (const seg of segments) {
      const hits: Array<[string, number]> = [];
      for (const [k, b] of wanted) {
        if (out.has(k)) continue;
        const i = find(seg.keys, seg.count, b);
        if (i >= 0) hits.push([k, i]);
      }
      if (hits.length === 0) continue;
      // Most of a segment wanted: one read of its whole vector block beats a read per hit.
      if (!seg.vectors && hits.length * 4 >= seg.count) seg.vectors = await this.readVectors(seg, 0, seg.count);
      const vectors = seg.vectors;
      if (vectors) for (const [k, i] of hits) out.set(k, vectors.slice(i * dims, (i + 1) * dims));
      else {
        const rows = await this.readRows(seg, hits.map(([, i]) => i));
        hits.forEach(([k], n) => out.set(k, rows[n]!));
      }
    }
    return out;
  }

  /** Single rows of a segment, through one open file (blocking reads when they add up to little). */
  private async readRows(seg: Segment, rows: readonly number[]): Promise<Float32Array[]> {
    const rowBytes = this.dims! * 4;
    const out = rows.map(() => new Float32Array(this.dims!));
    try {
      if (rows.length * rowBytes < SMALL_FILE_BYTES) {
        const fd = fsSync.openSync(seg.file, 'r');
        try {
          rows.forEach((r, n) => {
            if (!readFullySync(fd, new Uint8Array(out[n]!.buffer), seg.vectorsAt + r * rowBytes)) throw new Error('file ended early');
          });
        } finally {
          fsSync.closeSync(fd);
        }
      } else {
        const h = await fs.open(seg.file, 'r');
        try {
          for (const [n, r] of rows.entries()) await readAt(h, new Uint8Array(out[n]!.buffer), seg.vectorsAt + r * rowBytes);
        } finally {
          await h.close();
        }
      }
    } catch (err) {
      throw new StoreError('store_io', `cannot read the embedding cache ${seg.file}: ${errorMessage(err)}`, { cause: err });
    }
    return out;
  }

  private async readVectors(seg: Segment, first: number, count: number): Promise<Float32Array> {
    const dims = this.dims!;
    const out = new Float32Array(count * dims);
    const h = await fs.open(seg.file, 'r');
    try {
      await readAt(h, new Uint8Array(out.buffer), seg.vectorsAt + first * dims * 4);
    } catch (err) {
      throw new StoreError('store_io', `cannot read the embedding cache ${seg.file}: ${errorMessage(err)}`, { cause: err });
    } finally {
      await h.close();
    }
    // Stored little-endian; every platform Node runs on reads Float32Array little-endian.
    return out;
  }

  async putAll(items: ReadonlyArray<readonly [string, Float32Array]>): Promise<void> {
    if (items.length === 0) return;
    const known = await this.getMany(items.map(([k]) => k));
    const unique = new Map<string, Float32Array>();
    for (const [k, v] of items) if (!known.has(k)) unique.set(k, v);
    if (unique.size === 0) return;
    const seg = await this.writeSegment(unique);
    this.segments?.push(seg);
    for (const [k, v] of unique) this.fresh.set(k, v);
  }

  /**
   * Keeps the number of segments logarithmic in the cache's size: while some size tier holds
   * TIER_FANOUT segments, they are merged into one. The merged segment is written before the old ones
   * are removed: a crash in between leaves duplicates, which are harmless.
   */
  async compact(): Promise<void> {
    let segments = await this.open();
    const dims = this.dims;
    if (dims === null) return;
    for (;;) {
      const tiers = new Map<number, Segment[]>();
      for (const seg of segments) {
        const t = cacheTier(seg.count);
        const list = tiers.get(t) ?? [];
        list.push(seg);
        tiers.set(t, list);
      }
      const full = [...tiers].filter(([, list]) => list.length >= TIER_FANOUT).sort(([a], [b]) => a - b)[0];
      if (!full) return;
      const victims = full[1];
      const merged = new Map<string, Float32Array>();
      for (const seg of victims) {
        const vectors = seg.vectors ?? (await this.readVectors(seg, 0, seg.count));
        for (let i = 0; i < seg.count; i++) {
          const k = seg.keys.toString('hex', i * KEY, i * KEY + KEY);
          if (!merged.has(k)) merged.set(k, vectors.subarray(i * dims, (i + 1) * dims));
        }
      }
      const replacement = await this.writeSegment(merged);
      for (const seg of victims) {
        await fs.rm(seg.file, { force: true });
        openedKeys.forget(seg.file);
      }
      segments = [...segments.filter((s) => !victims.includes(s)), replacement];
      this.segments = segments;
    }
  }

  private async writeSegment(unique: ReadonlyMap<string, Float32Array>): Promise<Segment> {
    const dims = (this.dims ??= unique.values().next().value!.length);
    const sorted = [...unique].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const count = sorted.length;
    const vectorsAt = HEADER + count * KEY;
    // A buffer of its own (never Node's shared pool), so the vector block is 4-byte aligned for the view.
    const bytes = new Uint8Array(vectorsAt + count * dims * 4);
    const buf = Buffer.from(bytes.buffer, 0, bytes.byteLength);
    buf.write(MAGIC, 0, 'latin1');
    buf.writeUInt32LE(EMBEDDING_CACHE_FORMAT_VERSION, 4);
    buf.writeUInt32LE(dims, 8);
    buf.writeUInt32LE(count, 12);
    // Float32Array is little-endian on every platform Node runs on, as the format requires.
    const vectors = new Float32Array(bytes.buffer, vectorsAt, count * dims);
    sorted.forEach(([k, v], i) => {
      if (v.length !== dims) throw new Error(`vector of ${v.length} dimensions in a ${dims}-dimension cache`);
      buf.write(k, HEADER + i * KEY, 'hex');
      vectors.set(v, i * dims);
    });
    const file = path.join(this.dir, `seg-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}.dqe`);
    try {
      await fs.mkdir(this.dir, { recursive: true });
      const meta = JSON.stringify({ formatVersion: EMBEDDING_CACHE_FORMAT_VERSION, family: this.family, model: this.model, dims });
      if (!this.metaWritten && (await fs.readFile(path.join(this.dir, 'meta.json'), 'utf8').catch(() => '')) !== meta) await writeDurable(path.join(this.dir, 'meta.json'), meta);
      this.metaWritten = true;
      await writeDurable(file, buf);
    } catch (err) {
      throw new StoreError('store_io', `cannot write the embedding cache: ${errorMessage(err)}`, { cause: err });
    }
    const keys = Buffer.from(buf.subarray(HEADER, vectorsAt));
    openedKeys.remember(file, { dims, count, keys, vectorsAt });
    return { file, count, keys, vectorsAt, vectors: null };
  }
}
