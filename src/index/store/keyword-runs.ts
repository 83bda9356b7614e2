import fs from 'node:fs/promises';
import type { FileAppender } from '../../common/file-appender';
import type { Bm25Data } from '../search/bm25-build';

/**
 * A segment's keyword index built batch by batch, as external sorting does it (Lucene's segment
 * merging, Tantivy's, the same idea): each batch's postings go to a run file term by term, and the runs
 * are then merged term by term into the segment's `keyword.postings`, so a build holds one batch's
 * index and one term's postings at a time, never the segment's whole index.
 *
 * A record, in a run file: u32 term length (UTF-16 code units), u32 n, the code units (padded to 4
 * bytes), then n × u32 blocks (ascending, segment-wide), n × u16 text-field frequencies, n × u16
 * headings-field frequencies. keyword.postings holds the last three arrays per term (8n bytes), in term
 * order, found through the offsets in keyword.pack.
 *
 * A batch of Chinese text has about 17 distinct terms (characters and bigrams) a block, so a million
 * blocks make some 17 million run records: each is parsed in place, without a promise or an
 * allocation beyond its term's string (a first version spent 40 µs a record).
 */

const pad4 = (n: number) => (n + 3) & ~3;

/** Bytes gathered before a write of a run file; bytes a run reader reads at once (a segment's runs are read side by side). */
const RUN_PIECE = 1 << 20;
const READ_PIECE = 64 * 1024;
/** Runs merged at once: their readers and files open together. */
export const MERGE_FANIN = 64;

/** Writes a batch's index to a run file, block numbers shifted by `base` (the batch's first block in the segment). */
export async function writeRun(out: FileAppender, data: Bm25Data, base: number): Promise<void> {
  let buf = new ArrayBuffer(RUN_PIECE);
  let u32 = new Uint32Array(buf);
  let u16 = new Uint16Array(buf);
  let at = 0;
  const flush = async () => {
    if (at === 0) return;
    const w = out.append(new Uint8Array(buf, 0, at));
    if (w) await w;
    at = 0;
  };
  for (let t = 0; t < data.terms.length; t++) {
    const term = data.terms.at(t)!;
    const start = data.offsets[t]!;
    const n = data.offsets[t + 1]! - start;
    const size = 8 + pad4(term.length * 2) + 8 * n;
    if (at + size > buf.byteLength) {
      await flush();
      if (size > buf.byteLength) {
        buf = new ArrayBuffer(size);
        u32 = new Uint32Array(buf);
        u16 = new Uint16Array(buf);
      }
    }
    u32[at >> 2] = term.length;
    u32[(at >> 2) + 1] = n;
    let c = (at + 8) >> 1;
    for (let k = 0; k < term.length; k++) u16[c++] = term.charCodeAt(k);
    if (term.length & 1) u16[c] = 0;
    let p = (at + 8 + pad4(term.length * 2)) >> 2;
    for (let i = start; i < start + n; i++) u32[p++] = data.blocks[i]! + base;
    u16.set(data.tfs.subarray(start, start + n), p * 2);
    u16.set(data.headTfs.subarray(start, start + n), p * 2 + n);
    at += size;
  }
  await flush();
}

/** A sorted source of (term, postings) records, parsed in place. */
interface RunSource {
  /** The current record's term; null once exhausted. */
  term: string | null;
  /** Postings of the current record. */
  count: number;
  /** The current record's postings as appended: [blocks, tfs, headTfs] byte views. */
  views(): [Uint8Array, Uint8Array, Uint8Array];
  /** The three arrays as one view when they lie together (a run file's record), else null. */
  whole(): Uint8Array | null;
  /** Moves to the next record; false when that needs a read first (then call `fill`). */
  advance(): boolean;
  fill(): Promise<void>;
  close(): Promise<void>;
}

/** A run read front to back through a buffer that grows only to the largest record. */
class FileRun implements RunSource {
  term: string | null = null;
  count = 0;
  private buf = new ArrayBuffer(READ_PIECE);
  private u32 = new Uint32Array(this.buf);
  private u16 = new Uint16Array(this.buf);
  private bytes = new Uint8Array(this.buf);
  /** Bytes of the buffer holding file data, the current record's postings, and where the next record starts. */
  private filled = 0;
  private postingsAt = 0;
  private at = 0;
  private fileAt = 0;
  private ended = false;

  private constructor(private readonly h: fs.FileHandle) {}

  static async open(file: string): Promise<FileRun> {
    const run = new FileRun(await fs.open(file, 'r'));
    if (!run.advance()) await run.fill();
    return run;
  }

  /** Bytes the record at `at` takes, or 0 when its head is not in the buffer yet. */
  private recordSize(): number {
    if (this.filled - this.at < 8) return 0;
    return 8 + pad4(this.u32[this.at >> 2]! * 2) + 8 * this.u32[(this.at >> 2) + 1]!;
  }

  advance(): boolean {
    const size = this.recordSize();
    if (size === 0 || this.filled - this.at < size) {
      if (this.ended && this.filled === this.at) {
        this.term = null;
        return true;
      }
      return false;
    }
    const len = this.u32[this.at >> 2]!;
    this.count = this.u32[(this.at >> 2) + 1]!;
    const c = (this.at + 8) >> 1;
    const u = this.u16;
    // Most terms are a character or two (CJK characters and bigrams): no view, no spread for those.
    this.term = len === 1 ? String.fromCharCode(u[c]!) : len === 2 ? String.fromCharCode(u[c]!, u[c + 1]!) : len <= 8 ? String.fromCharCode(...u.subarray(c, c + len)) : Buffer.from(this.buf, this.at + 8, len * 2).toString('utf16le');
    this.postingsAt = this.at + 8 + pad4(len * 2);
    this.at += size;
    return true;
  }

  /** Reads more of the file (keeping the unread tail at the buffer's start, 4-byte aligned) until the next record is whole, then advances. */
  async fill(): Promise<void> {
    for (;;) {
      const need = Math.max(8, this.recordSize());
      const rest = this.filled - this.at;
      if (need > this.buf.byteLength) {
        const bigger = new ArrayBuffer(Math.max(need, this.buf.byteLength * 2));
        new Uint8Array(bigger).set(this.bytes.subarray(this.at, this.filled));
        this.buf = bigger;
        this.u32 = new Uint32Array(bigger);
        this.u16 = new Uint16Array(bigger);
        this.bytes = new Uint8Array(bigger);
      } else this.bytes.copyWithin(0, this.at, this.filled);
      this.filled = rest;
      this.at = 0;
      if (this.ended) throw new Error('keyword run ends inside a record');
      while (!this.ended && this.filled < this.buf.byteLength) {
        const { bytesRead } = await this.h.read(this.bytes, this.filled, this.buf.byteLength - this.filled, this.fileAt);
        if (bytesRead === 0) this.ended = true;
        this.filled += bytesRead;
        this.fileAt += bytesRead;
      }
      if (this.advance()) return;
    }
  }

  views(): [Uint8Array, Uint8Array, Uint8Array] {
    const n = this.count;
    const p = this.postingsAt;
    return [new Uint8Array(this.buf, p, 4 * n), new Uint8Array(this.buf, p + 4 * n, 2 * n), new Uint8Array(this.buf, p + 6 * n, 2 * n)];
  }

  whole(): Uint8Array {
    return new Uint8Array(this.buf, this.postingsAt, 8 * this.count);
  }

  async close(): Promise<void> {
    await this.h.close();
  }
}

/** A batch's index still in memory (a segment of a single batch needs no run file). */
class MemoryRun implements RunSource {
  term: string | null = null;
  count = 0;
  private t = -1;

  constructor(private readonly data: Bm25Data) {
    this.advance();
  }

  advance(): boolean {
    const d = this.data;
    this.t++;
    if (this.t >= d.terms.length) this.term = null;
    else {
      this.term = d.terms.at(this.t)!;
      this.count = d.offsets[this.t + 1]! - d.offsets[this.t]!;
    }
    return true;
  }

  async fill(): Promise<void> {}

  views(): [Uint8Array, Uint8Array, Uint8Array] {
    const d = this.data;
    const s = d.offsets[this.t]!;
    const n = this.count;
    return [new Uint8Array(d.blocks.buffer, d.blocks.byteOffset + 4 * s, 4 * n), new Uint8Array(d.tfs.buffer, d.tfs.byteOffset + 2 * s, 2 * n), new Uint8Array(d.headTfs.buffer, d.headTfs.byteOffset + 2 * s, 2 * n)];
  }

  whole(): null {
    return null;
  }

  async close(): Promise<void> {}
}

/** Growable typed storage for the merged term table and offsets. */
class Grow<T extends Uint16Array | Uint32Array | Float64Array> {
  length = 0;
  constructor(
    public a: T,
    private readonly make: (n: number) => T,
  ) {}
  push(v: number): void {
    if (this.length === this.a.length) {
      const next = this.make(this.a.length * 2);
      next.set(this.a);
      this.a = next;
    }
    this.a[this.length++] = v;
  }
  get view(): T {
    return this.a.subarray(0, this.length) as T;
  }
}

/** What keyword.pack stores beside the postings: the sorted terms and where each one's postings start. */
export interface MergedTerms {
  termChars: Uint16Array;
  termStarts: Uint32Array;
  /** offsets[t] (in postings) .. offsets[t + 1]; record t starts at byte 8 · offsets[t] of keyword.postings. */
  offsets: Float64Array;
}

/**
 * Merges sorted runs term by term in code-unit order (the order the index's binary search assumes),
 * calling `emit` with each term and the runs holding it, in their order (which is block order). The
 * sources' postings are views valid until `emit` returns (or its promise settles: it returns one only
 * when it had to write, so most of a million terms cost no promise).
 */
async function mergeSources(runs: ReadonlyArray<string | Bm25Data>, emit: (term: string, parts: readonly RunSource[]) => Promise<void> | undefined): Promise<void> {
  const sources: RunSource[] = [];
  try {
    for (const r of runs) sources.push(typeof r === 'string' ? await FileRun.open(r) : new MemoryRun(r));
    // A heap of run indices by (term, run): the smallest term on top, equal terms in run order.
    const heap: number[] = [];
    const less = (a: number, b: number) => {
      const x = sources[a]!.term!;
      const y = sources[b]!.term!;
      return x < y || (x === y && a < b);
    };
    const up = (i: number) => {
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!less(heap[i]!, heap[p]!)) return;
        const t = heap[i]!;
        heap[i] = heap[p]!;
        heap[p] = t;
        i = p;
      }
    };
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        let m = i;
        if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
        if (l + 1 < heap.length && less(heap[l + 1]!, heap[m]!)) m = l + 1;
        if (m === i) return;
        const t = heap[i]!;
        heap[i] = heap[m]!;
        heap[m] = t;
        i = m;
      }
    };
    const pop = () => {
      const top = heap[0]!;
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        down(0);
      }
      return top;
    };
    const push = (i: number) => {
      heap.push(i);
      up(heap.length - 1);
    };
    sources.forEach((s, i) => {
      if (s.term !== null) push(i);
    });
    const taken: number[] = [];
    const parts: RunSource[] = [];
    let previous: string | null = null;
    while (heap.length > 0) {
      const term = sources[heap[0]!]!.term!;
      if (previous !== null && !(previous < term)) throw new Error(`internal: keyword runs out of order at ${JSON.stringify(term)}`);
      previous = term;
      taken.length = 0;
      parts.length = 0;
      while (heap.length > 0 && sources[heap[0]!]!.term === term) taken.push(pop());
      for (const i of taken) parts.push(sources[i]!);
      const w = emit(term, parts);
      if (w) await w;
      for (const i of taken) {
        const s = sources[i]!;
        if (!s.advance()) await s.fill();
        if (s.term !== null) push(i);
      }
    }
  } finally {
    for (const s of sources) await s.close();
  }
}

/**
 * Appends a term's postings, run by run for each of the three arrays (one view when a single run file
 * holds it); a promise only when a write had to wait (as FileAppender.append).
 */
function appendPostings(out: FileAppender, parts: readonly RunSource[]): Promise<void> | undefined {
  const one = parts.length === 1 ? parts[0]!.whole() : null;
  if (one) return out.append(one);
  return appendViews(out, parts.map((p) => p.views()), 0);
}

/** The three arrays of every view from the `from`-th piece on (array by array, view by view). */
function appendViews(out: FileAppender, views: ReadonlyArray<readonly Uint8Array[]>, from: number): Promise<void> | undefined {
  for (let i = from; i < 3 * views.length; i++) {
    const w = out.append(views[i % views.length]![Math.floor(i / views.length)]!);
    if (w) return w.then(() => appendViews(out, views, i + 1));
  }
  return undefined;
}

/**
 * Merges runs (files written by writeRun, or one batch's index in memory) into `postings`, and returns
 * the term table and offsets. Removes nothing: the caller deletes the run files.
 */
export async function mergeRuns(runs: ReadonlyArray<string | Bm25Data>, postings: FileAppender): Promise<MergedTerms> {
  const chars = new Grow(new Uint16Array(1 << 16), (n) => new Uint16Array(n));
  const starts = new Grow(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
  const offsets = new Grow(new Float64Array(1 << 12), (n) => new Float64Array(n));
  starts.push(0);
  offsets.push(0);
  let total = 0;
  await mergeSources(runs, (term, parts) => {
    for (let k = 0; k < term.length; k++) chars.push(term.charCodeAt(k));
    starts.push(chars.length);
    for (const p of parts) total += p.count;
    offsets.push(total);
    return appendPostings(postings, parts);
  });
  return { termChars: chars.view, termStarts: starts.view, offsets: offsets.view };
}

/**
 * Merges run files into one run file (the same records, block numbers unchanged), so that a segment of
 * any size never merges more than MERGE_FANIN runs at once (each posting is copied once per level:
 * twice for a million blocks).
 */
export async function mergeToRun(runs: readonly string[], out: FileAppender): Promise<void> {
  let head = new Uint8Array(256);
  await mergeSources(runs, (term, parts) => {
    const size = 8 + pad4(term.length * 2);
    if (size > head.length) head = new Uint8Array(size * 2);
    const u32 = new Uint32Array(head.buffer, 0, 2);
    u32[0] = term.length;
    u32[1] = parts.reduce((n, p) => n + p.count, 0);
    const u16 = new Uint16Array(head.buffer, 8, (size - 8) / 2);
    u16.fill(0);
    for (let k = 0; k < term.length; k++) u16[k] = term.charCodeAt(k);
    const w = out.append(head.subarray(0, size));
    return w ? w.then(() => appendPostings(out, parts)) : appendPostings(out, parts);
  });
}
