import type { Int8Scorer } from './dot-kernel';
import { quantizeQuery } from './quantize';
import type { RankedBlock, VectorSide } from './search-sides';
import { exactDot, normalizedQuery } from './vector-index';

/**
 * The exact float32 rows of a shard (L2-normalised, as built), read when a query rescores its
 * candidates: from the segment's vectors.f32 on disk in a snapshot, from memory in tests.
 */
export interface ExactRows {
  /** Calls `use` with each of `rows` (local row numbers, ascending) and its float32 row (a view reused between calls). */
  read(rows: readonly number[], use: (row: number, values: Float32Array) => void): void;
}

/** Exact rows held in memory. */
export class MemoryRows implements ExactRows {
  constructor(
    private readonly matrix: Float32Array,
    private readonly dims: number,
  ) {}

  read(rows: readonly number[], use: (row: number, values: Float32Array) => void): void {
    for (const r of rows) use(r, this.matrix.subarray(r * this.dims, (r + 1) * this.dims));
  }
}

/** One scanned part of the vector side: a segment's rows (or a slice of them) in one int8 scorer. */
export interface VectorShard {
  scorer: Int8Scorer;
  /** Local row → global block, -1 for a row of a document the snapshot no longer holds; null: `base` + row. */
  toGlobal: Int32Array | null;
  base: number;
  exact: ExactRows;
}

/**
 * Candidates rescored exactly per query: at least this many, and four times the rows asked for. On hash
 * n-gram embeddings of the QA paragraphs the exact top 10 was always inside the int8 top 256 (bench
 * `scale`, recall rows); each candidate costs one 4 KB read of a page-cached file at 1,024 dimensions.
 */
export const RESCORE_MIN = 256;
export const RESCORE_FACTOR = 4;

/**
 * A bounded set of the best (score, block) pairs: a binary heap with the worst at the top, so a row that
 * does not beat it costs one comparison. Order: higher score first, then the lower block (the global
 * block order every tie-break of the index follows).
 */
class Candidates {
  readonly scores: Float64Array;
  readonly blocks: Int32Array;
  readonly shards: Int32Array;
  readonly locals: Int32Array;
  size = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.blocks = new Int32Array(capacity);
    this.shards = new Int32Array(capacity);
    this.locals = new Int32Array(capacity);
  }

  /** Whether (s, b) ranks below slot i. */
  private below(s: number, b: number, i: number): boolean {
    return s < this.scores[i]! || (s === this.scores[i]! && b > this.blocks[i]!);
  }

  /** The worst score kept once full (-Infinity before): a row must reach it to get in. */
  get bar(): number {
    return this.size < this.capacity ? -Infinity : this.scores[0]!;
  }

  offer(s: number, block: number, shard: number, local: number): void {
    if (this.size === this.capacity) {
      if (this.below(s, block, 0) || (s === this.scores[0]! && block === this.blocks[0]!)) return;
      this.set(0, s, block, shard, local);
      this.siftDown(0);
      return;
    }
    const i = this.size++;
    this.set(i, s, block, shard, local);
    this.siftUp(i);
  }

  private set(i: number, s: number, block: number, shard: number, local: number): void {
    this.scores[i] = s;
    this.blocks[i] = block;
    this.shards[i] = shard;
    this.locals[i] = local;
  }

  private swap(i: number, j: number): void {
    const s = this.scores[i]!;
    const b = this.blocks[i]!;
    const sh = this.shards[i]!;
    const l = this.locals[i]!;
    this.set(i, this.scores[j]!, this.blocks[j]!, this.shards[j]!, this.locals[j]!);
    this.set(j, s, b, sh, l);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      // The heap keeps the worst on top: move up while this one ranks below its parent.
      if (!this.below(this.scores[i]!, this.blocks[i]!, p)) return;
      this.swap(i, p);
      i = p;
    }
  }

  private siftDown(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < this.size && this.below(this.scores[l]!, this.blocks[l]!, w)) w = l;
      if (r < this.size && this.below(this.scores[r]!, this.blocks[r]!, w)) w = r;
      if (w === i) return;
      this.swap(i, w);
      i = w;
    }
  }
}

/**
 * The vector side of a snapshot: every row scanned as int8 codes (a quarter of float32) by the SIMD
 * kernel, the best `max(RESCORE_MIN, RESCORE_FACTOR · k)` by that approximate score rescored exactly
 * against their float32 rows (read on demand), and the top k of the exact scores returned. The exact
 * score is the one the float32 scan computed (same sums in the same order), so a result is the exact
 * ranking whenever the exact top k is among the candidates; ties go to the lower block, both in the
 * candidate cut and in the result, so the same snapshot and query always give the same answer.
 */
export class QuantizedVectors implements VectorSide {
  private readonly queryCodes: Int16Array;

  constructor(
    readonly shards: readonly VectorShard[],
    readonly dims: number,
    /** Global blocks (live rows) in the snapshot. */
    readonly size: number,
  ) {
    this.queryCodes = new Int16Array(dims);
    for (const s of shards) if (s.scorer.dims !== dims) throw new Error(`internal: a shard of ${s.scorer.dims} dimensions in an index of ${dims}`);
  }

  /** Bytes held in WebAssembly memories, which process.memoryUsage() does not count. */
  get wasmBytes(): number {
    return this.shards.reduce((n, s) => n + s.scorer.memoryBytes, 0);
  }

  /**
   * Every live row in global block order: codes, scales and the exact float32 rows (read from disk).
   * For comparing snapshots (tests, diagnostics): it holds the whole float32 matrix.
   */
  globalRows(): { codes: Int8Array; scales: Float32Array; exact: Float32Array } {
    const { dims, size } = this;
    const codes = new Int8Array(size * dims);
    const scales = new Float32Array(size);
    const exact = new Float32Array(size * dims);
    for (const shard of this.shards) {
      const live: number[] = [];
      for (let r = 0; r < shard.scorer.rows; r++) {
        const g = shard.toGlobal ? shard.toGlobal[r]! : shard.base + r;
        if (g < 0) continue;
        live.push(r);
        codes.set(shard.scorer.codes.subarray(r * dims, (r + 1) * dims), g * dims);
        scales[g] = shard.scorer.scales[r]!;
      }
      shard.exact.read(live, (r, values) => exact.set(values, (shard.toGlobal ? shard.toGlobal[r]! : shard.base + r) * dims));
    }
    return { codes, scales, exact };
  }

  search(query: Float32Array, k: number, allowed?: (block: number) => boolean): RankedBlock[] {
    if (k <= 0 || this.size === 0) return [];
    const q = normalizedQuery(query, this.dims);
    quantizeQuery(q, this.queryCodes);
    const candidates = new Candidates(Math.max(RESCORE_MIN, RESCORE_FACTOR * k));
    this.shards.forEach((shard, si) => this.scan(shard, si, candidates, allowed));
    return this.rescore(candidates, q, k);
  }

  /** Scores a shard's live (and allowed) rows, in runs, and offers each to the candidates. */
  private scan(shard: VectorShard, si: number, out: Candidates, allowed?: (block: number) => boolean): void {
    const { scorer, toGlobal, base } = shard;
    const live = (r: number) => (toGlobal ? toGlobal[r]! : base + r);
    const offerRun = (first: number, end: number) => {
      scorer.score(this.queryCodes, first, end - first);
      const { scores } = scorer;
      for (let r = first; r < end; r++) {
        const s = scores[r]!;
        if (s < out.bar) continue;
        out.offer(s, live(r), si, r);
      }
    };
    if (!toGlobal && !allowed) return offerRun(0, scorer.rows);
    // Runs of rows to score: a document's blocks are adjacent, so a filter or the dead rows of replaced
    // documents cut the shard into a few long runs.
    let r = 0;
    while (r < scorer.rows) {
      const g = live(r);
      if (g < 0 || (allowed && !allowed(g))) {
        r++;
        continue;
      }
      const first = r;
      for (r++; r < scorer.rows; r++) {
        const h = live(r);
        if (h < 0 || (allowed && !allowed(h))) break;
      }
      offerRun(first, r);
    }
  }

  /** Exact scores of the candidates (their float32 rows read shard by shard, in row order); the best k. */
  private rescore(c: Candidates, q: Float32Array, k: number): RankedBlock[] {
    const exact = new Map<number, number>();
    const byShard = new Map<number, number[]>();
    for (let i = 0; i < c.size; i++) {
      const list = byShard.get(c.shards[i]!) ?? [];
      list.push(c.locals[i]!);
      byShard.set(c.shards[i]!, list);
    }
    for (const [si, rows] of byShard) {
      const shard = this.shards[si]!;
      rows.sort((a, b) => a - b);
      shard.exact.read(rows, (r, values) => exact.set(shard.toGlobal ? shard.toGlobal[r]! : shard.base + r, exactDot(values, 0, q, this.dims)));
    }
    return [...exact]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([block, score]) => ({ block, score }));
  }
}
