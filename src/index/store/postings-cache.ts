import type { PostingList } from '../search/bm25-index';

/** Bytes of postings a loaded snapshot keeps after queries; lists below MIN_BYTES are not kept (cheap to read again). */
export const POSTINGS_CACHE_BYTES = 64 * 1024 * 1024;
const MIN_BYTES = 32 * 1024;

/**
 * The large posting lists a loaded snapshot's queries read last, least recently used out first, within
 * a byte budget: questions share their common words (the, of, 的), whose lists are megabytes at a
 * million blocks, read from disk again by every query otherwise. Filled by queries, never by the load.
 */
export class PostingsCache {
  private readonly lists = new Map<string, PostingList>();
  private bytes = 0;

  constructor(private readonly budget = POSTINGS_CACHE_BYTES) {}

  get(key: string): PostingList | undefined {
    const l = this.lists.get(key);
    if (l) {
      this.lists.delete(key);
      this.lists.set(key, l);
    }
    return l;
  }

  put(key: string, list: PostingList): void {
    const size = 8 * list.blocks.length;
    if (size < MIN_BYTES || size > this.budget) return;
    const had = this.lists.get(key);
    if (had) {
      this.lists.delete(key);
      this.bytes -= 8 * had.blocks.length;
    }
    this.lists.set(key, list);
    this.bytes += size;
    for (const [k, l] of this.lists) {
      if (this.bytes <= this.budget) break;
      this.lists.delete(k);
      this.bytes -= 8 * l.blocks.length;
    }
  }

  /** Bytes held. */
  get size(): number {
    return this.bytes;
  }
}
