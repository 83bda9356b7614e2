import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeDurable, writeDurablePieces } from '../../common/durable-write';
import { StoreError, errorMessage } from '../../common/errors';
import { futureVersion } from '../../common/json-file';
import { EMBEDDING_CACHE_FORMAT_VERSION, type Segment, encodeSegment, findRows, forgetKeys, headerAndKeys, openSegment, readFormat1, readRows, readVectors, segmentKeys, sweepRows, writtenSegment } from './cache-segment';
import { heldAfterMerge, mergedVectors } from './segment-merge';
import { KEY_BYTES as KEY, mergeOrder } from './sorted-keys';

export { EMBEDDING_CACHE_FORMAT_VERSION } from './cache-segment';

/**
 * Persistent embedding cache: an unchanged block is never embedded twice. One folder per
 * (endpoint family, model, dimensions); entries keyed by sha256 of the normalised text (NFC, white space
 * folded). Each build that embeds something adds one segment file (cache-segment.ts), written
 * atomically, so a crash loses at most the segment being written and never damages others. A lookup
 * searches the segments' sorted keys and reads vectors for the hits alone (the whole block when most of
 * a segment is wanted): a one-file edit of a large collection costs a few small reads, not a load of
 * every vector ever embedded.
 */
/**
 * Segments are grouped in size tiers of a factor TIER_FANOUT (1–3 vectors, 4–15, 16–63, …); when a tier
 * holds TIER_FANOUT segments they are merged, with every smaller one, into one. A folder so holds at
 * most (TIER_FANOUT − 1) segments per tier, and a vector is rewritten at most about once per tier it
 * climbs: a one-file edit adds a small segment and merges only small ones, and a first build's 98
 * flushes of 1,024 vectors become one segment in one pass (merging four at a time rewrote each vector
 * three times instead of once: 2.2 s of a 7.3 s 100k-vector write).
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

function orNull<T>(f: () => T | null): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

export class EmbeddingCache {
  private segments: Segment[] | null = null;
  /** Vectors added by this process (not yet in a segment this instance has read). */
  private readonly fresh = new Map<string, Float32Array>();
  /** meta.json's text as open() read it ('' when absent), then as written. */
  private metaOnDisk = '';
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
      // Blocking reads of a tiny file and a short folder: a thread-pool round trip costs more.
      this.metaOnDisk = fsSync.readFileSync(path.join(this.dir, 'meta.json'), 'utf8');
      meta = JSON.parse(this.metaOnDisk) as { dims?: unknown; formatVersion?: unknown };
    } catch {
      // No meta yet (or a damaged one, rewritten with the next segment): nothing cached for this model.
    }
    // A cache folder a newer DocQA arranged is not this one's to read or to add to (its meta would be replaced).
    if (typeof meta?.formatVersion === 'number' && meta.formatVersion > EMBEDDING_CACHE_FORMAT_VERSION) {
      throw futureVersion(path.join(this.dir, 'meta.json'), meta.formatVersion, EMBEDDING_CACHE_FORMAT_VERSION);
    }
    if (this.dims === null && typeof meta?.dims === 'number') this.dims = meta.dims;
    const dims = this.dims;
    if (dims === null) return (this.segments = segments);
    let names: string[] = [];
    try {
      names = fsSync.readdirSync(this.dir).filter((n) => n.startsWith('seg-')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StoreError('store_io', `cannot read ${this.dir}: ${errorMessage(err)}`);
    }
    for (const n of names) {
      const file = path.join(this.dir, n);
      // A segment that cannot be read or has the wrong shape is skipped whole: entries are only a cache.
      const seg = n.endsWith('.dqe') ? orNull(() => openSegment(file, dims)) : n.endsWith('.bin') ? await readFormat1(file, dims).catch(() => null) : null;
      if (seg) segments.push(seg);
    }
    return (this.segments = segments);
  }

  /**
   * Cached vectors of the given keys (hex); keys not cached are absent from the result. The vectors may
   * be views of a segment's block read whole: read them, copy them, never write to them. With `room`,
   * the rows read go into the buffer it gives for `n` values (then views on it, valid until it is
   * given again): a build reuses one for all its batches instead of a new 16 MB block per batch, whose
   * memory lingered until a collection and was then kept by the allocator.
   */
  async getMany(keys: readonly string[], room?: (n: number) => Float32Array): Promise<Map<string, Float32Array>> {
    const segments = await this.open();
    const out = new Map<string, Float32Array>();
    const wantedHex: string[] = [];
    for (const k of new Set(keys)) {
      const v = this.fresh.get(k);
      if (v) out.set(k, v);
      // Anything but a key's 64 hex digits cannot be in the cache.
      else if (k.length === 2 * KEY && /^[0-9a-f]+$/i.test(k)) wantedHex.push(k);
    }
    const dims = this.dims;
    if (dims === null || wantedHex.length === 0) return out;
    // All wanted keys in one buffer, key n at byte 32 n: one decode instead of a Buffer per key.
    const wanted = Buffer.from(wantedHex.join(''), 'hex');
    let open = wantedHex.map((_, n) => n);
    const into = room?.(wantedHex.length * dims);
    /** Rows of `into` taken so far. */
    let placed = 0;
    for (const seg of segments) {
      if (open.length === 0) break;
      // Its keys are all in `fresh`, looked at above (a build's dedupe of each flush searched every earlier flush: 0.4 s at 100k).
      if (seg.held) continue;
      const rows = findRows(seg, dims, wanted, open.map((n) => n * KEY));
      const hits: Array<[number, number]> = [];
      const still: number[] = [];
      open.forEach((n, j) => (rows[j]! >= 0 ? hits.push([n, rows[j]!]) : still.push(n)));
      open = still;
      if (hits.length === 0) continue;
      // Most of a segment wanted: one read of its whole vector block beats a read per hit (with `into`,
      // one pass over it).
      const most = hits.length * 4 >= seg.count;
      if (!seg.vectors && most && !into) seg.vectors = await readVectors(seg, dims);
      const block = seg.vectors;
      // Views, not copies: a copy of each vector cost a tenth of a 100k look-up, and callers only copy out.
      if (block) for (const [n, r] of hits) out.set(wantedHex[n]!, new Float32Array(block.buffer, block.byteOffset + r * dims * 4, dims));
      else {
        const rows = hits.map(([, r]) => r);
        const dest = into?.subarray(placed * dims, (placed += rows.length) * dims);
        const read = dest && most ? await sweepRows(seg, dims, rows, dest) : await readRows(seg, dims, rows, dest);
        read.forEach((v, j) => out.set(wantedHex[hits[j]![0]]!, v));
      }
    }
    return out;
  }

  async putAll(items: ReadonlyArray<readonly [string, Float32Array]>): Promise<void> {
    if (items.length === 0) return;
    const known = await this.getMany(items.map(([k]) => k));
    const unique = new Map<string, Float32Array>();
    for (const [k, v] of items) if (!known.has(k)) unique.set(k, v);
    if (unique.size === 0) return;
    const sorted = [...unique].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const dims = (this.dims ??= sorted[0]![1].length);
    const buf = encodeSegment(
      dims,
      sorted.length,
      (i, out, at) => void out.write(sorted[i]![0], at, 'hex'),
      (i) => sorted[i]![1],
    );
    const file = await this.newSegmentFile();
    await this.written(() => writeDurable(file, buf));
    for (const [k, v] of unique) this.fresh.set(k, v);
    this.segments?.push(writtenSegment(file, dims, buf, sorted.length, sorted.map(([, v]) => v)));
  }

  /**
   * Keeps the number of segments logarithmic in the cache's size: while some size tier holds
   * TIER_FANOUT segments, they and every smaller segment are merged into one. The merged segment is
   * written before the old ones are removed: a crash in between leaves duplicates, which are harmless.
   */
  async compact(): Promise<void> {
    let segments = await this.open();
    const dims = this.dims;
    if (dims === null) return;
    for (;;) {
      const perTier = new Map<number, number>();
      for (const seg of segments) {
        const t = cacheTier(seg.count);
        perTier.set(t, (perTier.get(t) ?? 0) + 1);
      }
      const full = [...perTier].filter(([, n]) => n >= TIER_FANOUT).map(([t]) => t);
      if (full.length === 0) return;
      const lowest = Math.min(...full);
      const victims = segments.filter((seg) => cacheTier(seg.count) <= lowest);
      const keys = victims.map((seg) => segmentKeys(seg, dims));
      const order = mergeOrder(keys);
      const count = order.source.length;
      const head = headerAndKeys(dims, count);
      const keysAt = head.length - count * KEY;
      for (let i = 0; i < count; i++) head.set(keys[order.source[i]!]!.bytes.subarray(order.row[i]! * KEY, (order.row[i]! + 1) * KEY), keysAt + i * KEY);
      const file = await this.newSegmentFile();
      await this.written(() =>
        writeDurablePieces(
          file,
          (async function* () {
            yield head;
            yield* mergedVectors(dims, victims, order);
          })(),
        ),
      );
      const replacement = writtenSegment(file, dims, head, count, heldAfterMerge(victims, order));
      for (const seg of victims) {
        await fs.rm(seg.file, { force: true });
        forgetKeys(seg.file);
      }
      segments = [...segments.filter((s) => !victims.includes(s)), replacement];
      this.segments = segments;
    }
  }

  /** A new segment's file name, its folder and meta.json made first. */
  private async newSegmentFile(): Promise<string> {
    await this.written(async () => {
      await fs.mkdir(this.dir, { recursive: true });
      const meta = JSON.stringify({ formatVersion: EMBEDDING_CACHE_FORMAT_VERSION, family: this.family, model: this.model, dims: this.dims });
      // Every write opens the cache first, so open() has read what is on disk.
      if (this.metaOnDisk !== meta) await writeDurable(path.join(this.dir, 'meta.json'), meta);
      this.metaOnDisk = meta;
    });
    return path.join(this.dir, `seg-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}.dqe`);
  }

  /** Runs a write, its failure named as the cache's. */
  private async written(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      throw new StoreError('store_io', `cannot write the embedding cache: ${errorMessage(err)}`, { cause: err });
    }
  }
}
