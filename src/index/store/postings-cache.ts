import type { PostingList } from '../search/bm25-index';

/**
 * Bytes of postings a loaded snapshot keeps after queries, in one buffer grown as its queries need it.
 * At a million blocks one question reads tens of megabytes of lists: with 64 MB, 1.7 MB a question
 * did not fit beside the running question's lists (buffers of their own, never kept) and 5.9 MB were
 * read from disk; with 128 MB, 0.04 and 2.2 MB, and keyword p95 15.0–20.1 ms against 18.9–19.6
 * (three interleaved runs each, 390 questions; 3 % of that snapshot's 2.1 GB in memory).
 */
export const POSTINGS_CACHE_BYTES = 128 * 1024 * 1024;
/** The buffer's first size: a small snapshot's lists never need the whole budget. */
const FIRST_BYTES = 1024 * 1024;
/** Lists below this are read into buffers of their own, never kept (cheap to read again). */
const MIN_BYTES = 4 * 1024;

interface Entry {
  key: string;
  offset: number;
  bytes: number;
  list: PostingList;
  /** The query that read or reused it last: it is not overwritten while that query runs. */
  query: number;
}

/**
 * The posting lists a loaded snapshot's queries read last, in one buffer written round and round, the
 * oldest lists overwritten first: questions share their common words (the, of, 的), whose lists are
 * megabytes at a million blocks, read from disk again by every query otherwise.
 *
 * One buffer, not one per list: a list read into a new ArrayBuffer is memory outside V8's heap, and
 * V8 answers that memory's growth with full collections of the heap. At a million blocks the lists a
 * question reads are megabytes, and those collections were a third of the keyword side's time (p95
 * 25 ms against 17 with no new buffers; bench `scale`).
 *
 * A list stays as it is while the query that read or reused it runs (until the next begin()): when the
 * lists one query reads outgrow the buffer, the rest get buffers of their own and are not kept. A list
 * held past its query may have been overwritten (Bm25Index reads it again then). The buffer starts at
 * 1 MB and doubles, up to the budget, when the lists outgrow it.
 */
export class PostingsCache {
  private readonly entries = new Map<string, Entry>();
  /** Kept lists in the order they were written: each lap of the buffer writes at rising offsets. */
  private ring: Entry[] = [];
  private first = 0;
  private head = 0;
  private buffer: ArrayBuffer | null = null;
  private query = 0;
  private held = 0;

  constructor(private readonly budget = POSTINGS_CACHE_BYTES) {}

  /** A new query begins: the lists earlier queries read may be overwritten from now on. */
  begin(): void {
    this.query++;
  }

  get(key: string): PostingList | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    e.query = this.query;
    return e.list;
  }

  /**
   * The list `key` of `n` postings, its 8·n bytes filled by `fill` (blocks as u32, then tfs and headTfs
   * as u16): kept in the buffer when it fits there without overwriting a list of the running query.
   */
  read(key: string, n: number, fill: (bytes: Uint8Array) => void): PostingList {
    const size = 8 * n;
    const offset = size >= MIN_BYTES && size <= this.budget ? this.room(size) : -1;
    if (offset < 0) return ownPostingList(n, fill);
    const buffer = this.buffer!;
    fill(new Uint8Array(buffer, offset, size));
    const e: Entry = { key, offset, bytes: size, list: views(buffer, offset, n), query: this.query };
    const had = this.entries.get(key);
    if (had) this.drop(had);
    this.entries.set(key, e);
    this.ring.push(e);
    this.held += size;
    this.head = offset + size;
    return e.list;
  }

  /** Where `size` bytes go (the oldest lists in the way dropped), or -1 when a list of the running query is in the way. */
  private room(size: number): number {
    const length = this.buffer?.byteLength ?? 0;
    if (this.head + size > length && length < this.budget) {
      // Grown, not allocated whole at once: a new buffer is memory V8 answers with a collection, and
      // 64 MB at a 10k-block snapshot's first question made it the slowest. The lists kept so far are
      // forgotten (those the running query holds stay whole: their views keep the old buffer).
      this.buffer = new ArrayBuffer(Math.min(this.budget, Math.max(2 * length, FIRST_BYTES, 2 * size)));
      this.entries.clear();
      this.ring = [];
      this.first = 0;
      this.head = 0;
      this.held = 0;
      return 0;
    }
    let at = this.head;
    if (at + size > length) {
      // Next lap: what is left of the last lap's tail goes first, so the ring stays in offset order.
      if (!this.dropWhile((e) => e.offset >= at)) return -1;
      at = 0;
    }
    const end = at + size;
    if (!this.dropWhile((e) => e.offset < end && e.offset >= at)) return -1;
    return at;
  }

  /** Drops the oldest lists while `inTheWay`; false when one of them belongs to the running query (nothing more is dropped). */
  private dropWhile(inTheWay: (e: Entry) => boolean): boolean {
    while (this.first < this.ring.length) {
      const e = this.ring[this.first]!;
      if (this.entries.get(e.key) !== e) {
        this.first++;
        continue;
      }
      if (!inTheWay(e)) break;
      if (e.query === this.query) return false;
      this.drop(e);
      this.first++;
    }
    if (this.first > 1024 && this.first * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.first);
      this.first = 0;
    }
    return true;
  }

  private drop(e: Entry): void {
    this.entries.delete(e.key);
    this.held -= e.bytes;
  }

  /** Bytes of lists kept. */
  get size(): number {
    return this.held;
  }
}

/** A list of `n` postings in a buffer of its own, filled by `fill` (offset 0: the u32 and u16 views need their alignment). */
export function ownPostingList(n: number, fill: (bytes: Uint8Array) => void): PostingList {
  const bytes = new Uint8Array(8 * n);
  fill(bytes);
  return views(bytes.buffer, 0, n);
}

function views(buffer: ArrayBuffer, offset: number, n: number): PostingList {
  return { blocks: new Uint32Array(buffer, offset, n), tfs: new Uint16Array(buffer, offset + 4 * n, n), headTfs: new Uint16Array(buffer, offset + 6 * n, n) };
}
