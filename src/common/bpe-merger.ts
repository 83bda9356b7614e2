/**
 * Exact token count of one pre-tokenizer chunk by byte-pair merging over an encoding's ranks (o200k's,
 * from gpt-tokenizer): what the library's `countTokens` computes for a chunk, without its costs. The
 * library looks each candidate span up by first decoding it to a string, spans that are not whole
 * characters by a binary search, and re-scans every pair after each merge: a Chinese clause (one chunk
 * of up to a hundred characters) took it about 0.2 ms, and counting unseen text was three quarters of
 * ingesting it. Here a span is looked up as bytes in a hash table and merges come off a heap, in the same
 * order (lowest rank first, leftmost among equals), so the count is the same (tested against the library
 * chunk by chunk).
 *
 * The lookups follow the library's exactly, quirks included: ranks given as strings are found only for
 * spans of whole characters, ranks given as bytes only for the others, and a span of whole characters
 * starting with a byte order mark is looked up without it (the library's TextDecoder drops it).
 */
export type Ranks = ReadonlyArray<string | readonly number[] | undefined>;

const RANK_SHIFT = 2 ** 32;
/** How a rank was given, and so which spans can find it. */
const STRING = 1;
const BYTES = 2;
const UNUSED = 0;

/** Slots of three: [hash, offset of the token's bytes in the table + 1 (0: free), rank << 2 | kind]. */
const SLOT = 3;

/** Bytes of scratch kept between chunks (about 400 KB in all); larger chunks get theirs for one count. */
const KEEP_BYTES = 1 << 14;

/** "DQBP", little-endian. */
const MAGIC = 0x50425144;
const PACK_VERSION = 1;
/** Magic, version, number of ranks: three 32-bit words. */
const HEADER = 12;

/**
 * The ranks as BpeMerger reads them, so that a build can ship them as one binary file: the header, then
 * per rank its kind (1 string, 2 bytes, 0 unused), its length in bytes and its bytes.
 */
export function packRanks(ranks: Ranks): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let size = HEADER;
  for (const [rank, token] of ranks.entries()) {
    if (token === undefined) {
      parts.push(Uint8Array.of(UNUSED));
      size += 1;
      continue;
    }
    const bytes = typeof token === 'string' ? encoder.encode(token) : Uint8Array.from(token);
    if (bytes.length === 0 || bytes.length > 255) throw new Error(`token ${rank} is ${bytes.length} bytes long; a table keeps 1 to 255`);
    const part = new Uint8Array(2 + bytes.length);
    part[0] = typeof token === 'string' ? STRING : BYTES;
    part[1] = bytes.length;
    part.set(bytes, 2);
    parts.push(part);
    size += part.length;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, PACK_VERSION, true);
  view.setUint32(8, ranks.length, true);
  let at = HEADER;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** What BpeMerger reads: the packed ranks (the arena its slots point into) and the lookup tables over them. */
export interface BpeTables {
  /** The table `packRanks` packed: each token is found at its offset here. */
  arena: Uint8Array;
  /** Open addressing, a power of two slots of SLOT words (see BpeMerger). */
  slots: Int32Array;
  maxTokenBytes: number;
  /** FILTER_WORDS words. */
  filter: Int32Array;
  /** PAIR_SLOTS words. */
  pairs: Int32Array;
}

/** Words per slot of `BpeTables.slots`, of the Bloom filter (2^21 bits, see filterBit) and of the pairs' table. */
export const SLOT_WORDS = SLOT;
export const FILTER_WORDS = (1 << 21) >>> 5;
export const PAIR_SLOTS = 2 << 16;

/** Whether `bytes` starts as a table `packRanks` packed (its header only). */
export function isPackedRanks(bytes: Uint8Array): boolean {
  if (bytes.length < HEADER) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint32(0, true) === MAGIC && view.getUint32(4, true) === PACK_VERSION;
}

/** The lookup tables over a table packed by `packRanks`, checked as they are built. */
export function buildTables(packed: Uint8Array): BpeTables {
  if (!isPackedRanks(packed)) throw new Error(`not a token table of version ${PACK_VERSION}`);
  const count = new DataView(packed.buffer, packed.byteOffset, packed.byteLength).getUint32(8, true);
  let capacity = 1 << 10;
  while (capacity < count * 2) capacity *= 2;
  const mask = capacity - 1;
  const slots = new Int32Array(capacity * SLOT);
  let maxTokenBytes = 0;
  let at = HEADER;
  for (let rank = 0; rank < count; rank++) {
    if (at >= packed.length) throw new Error(`token table ends at rank ${rank} of ${count}`);
    const kind = packed[at++]!;
    if (kind === UNUSED) continue;
    const len = packed[at]!;
    if ((kind !== STRING && kind !== BYTES) || len === 0 || at + 1 + len > packed.length) throw new Error(`token table is corrupt at rank ${rank}`);
    maxTokenBytes = Math.max(maxTokenBytes, len);
    const h = hashOf(packed, at + 1, at + 1 + len) ^ kind;
    let slot = (h ^ (h >>> 15)) & mask;
    for (let other = slots[slot * SLOT + 1]!; other !== 0; other = slots[slot * SLOT + 1]!) {
      // The same bytes twice: the later rank wins, as in the library's map.
      if (slots[slot * SLOT] === h && (slots[slot * SLOT + 2]! & 3) === kind && sameToken(packed, other - 1, packed, at + 1, len)) break;
      slot = (slot + 1) & mask;
    }
    slots[slot * SLOT] = h;
    slots[slot * SLOT + 1] = at + 1;
    slots[slot * SLOT + 2] = (rank << 2) | kind;
    at += 1 + len;
  }
  if (at !== packed.length) throw new Error(`token table has ${packed.length - at} bytes past its last rank`);
  const filter = new Int32Array(FILTER_WORDS);
  const pairs = new Int32Array(PAIR_SLOTS).fill(-1);
  for (let slot = 0; slot <= mask; slot++) {
    const token = slots[slot * SLOT + 1]!;
    if (token === 0) continue;
    const bit = filterBit(slots[slot * SLOT]!);
    filter[bit >>> 5] = filter[bit >>> 5]! | (1 << (bit & 31));
    if (packed[token - 1] !== 2) continue;
    const info = slots[slot * SLOT + 2]!;
    pairs[((info & 3) - 1) * 65536 + (packed[token]! << 8) + packed[token + 1]!] = info >>> 2;
  }
  return { arena: packed, slots, maxTokenBytes, filter, pairs };
}

export class BpeMerger {
  /**
   * Open addressing over the tokens' bytes. A lookup touches one slot and the packed table, where each
   * token is its length (one byte) then its bytes; separate arrays per field cost a cache miss each.
   */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly arena: Uint8Array;
  private readonly maxTokenBytes: number;
  /**
   * Ranks of two-byte tokens by their bytes (x << 8 | y), given as strings then as bytes (-1: none): two
   * lookups in five are of two bytes, and these 512 KB stay in the processor's cache where the hash table
   * (6 MB) does not.
   */
  private readonly pairs: Int32Array;
  /**
   * One bit per hash of every token (a Bloom filter with one probe): most spans looked up are no token,
   * and this 256 KB answers nine in ten of them without touching the hash table.
   */
  private readonly filter: Int32Array;

  // Scratch for one chunk: its UTF-8 bytes, the symbols' links and pair ranks, the heap of pairs (a merge
  // pushes at most two pairs and pops one: at most 2n entries).
  private buf = new Uint8Array(KEEP_BYTES);
  private next = new Int32Array(KEEP_BYTES);
  private prev = new Int32Array(KEEP_BYTES);
  private pair = new Int32Array(KEEP_BYTES);
  private heap = new Float64Array(KEEP_BYTES * 2);

  /** Tables built by `buildTables`, or read back whole from a file (bpe-table-file.ts). */
  constructor(tables: BpeTables) {
    this.slots = tables.slots;
    this.mask = tables.slots.length / SLOT - 1;
    this.arena = tables.arena;
    this.maxTokenBytes = tables.maxTokenBytes;
    this.filter = tables.filter;
    this.pairs = tables.pairs;
  }

  /** The tables it reads, as built: what a build writes to a file so that a start need not build them again. */
  get tables(): BpeTables {
    return { arena: this.arena, slots: this.slots, maxTokenBytes: this.maxTokenBytes, filter: this.filter, pairs: this.pairs };
  }

  /** Over a table packed by `packRanks`. */
  static fromPacked(packed: Uint8Array): BpeMerger {
    return new BpeMerger(buildTables(packed));
  }

  static fromRanks(ranks: Ranks): BpeMerger {
    return BpeMerger.fromPacked(packRanks(ranks));
  }

  /** Rank given as `kind` for the bytes `buf[a, c)`, or -1 when there is none. */
  private lookup(buf: Uint8Array, a: number, c: number, kind: number): number {
    const len = c - a;
    if (len > this.maxTokenBytes) return -1;
    const h = hashOf(buf, a, c) ^ kind;
    const bit = filterBit(h);
    if ((this.filter[bit >>> 5]! & (1 << (bit & 31))) === 0) return -1;
    const slots = this.slots;
    const mask = this.mask;
    let slot = (h ^ (h >>> 15)) & mask;
    for (let at = slots[slot * SLOT + 1]!; at !== 0; at = slots[slot * SLOT + 1]!) {
      const info = slots[slot * SLOT + 2]!;
      if (slots[slot * SLOT] === h && (info & 3) === kind && sameToken(this.arena, at - 1, buf, a, len)) return info >>> 2;
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  /** Rank of the span `buf[a, c)` of a chunk of `n` bytes as the library finds it, or -1. */
  private rankOf(buf: Uint8Array, a: number, c: number, n: number): number {
    // The chunk's bytes are valid UTF-8, so a span is whole characters when neither end cuts into one.
    const whole = (buf[a]! & 0xc0) !== 0x80 && (c === n || (buf[c]! & 0xc0) !== 0x80);
    if (c - a === 2) return this.pairs[(whole ? 0 : 65536) + (buf[a]! << 8) + buf[a + 1]!]!;
    if (!whole) return this.lookup(buf, a, c, BYTES);
    if (buf[a] === 0xef && buf[a + 1] === 0xbb && buf[a + 2] === 0xbf) a += 3;
    return a === c ? -1 : this.lookup(buf, a, c, STRING);
  }

  /** The chunk's code units `b[s, e)` as UTF-8 in `buf`, a lone surrogate as U+FFFD (as TextEncoder does). */
  private encode(b: Uint16Array, s: number, e: number): { length: number; lone: boolean } {
    if (this.buf.length < (e - s) * 3) {
      let size = this.buf.length;
      while (size < (e - s) * 3) size *= 2;
      this.resize(size);
    }
    const out = this.buf;
    let n = 0;
    let lone = false;
    for (let k = s; k < e; k++) {
      const c = b[k]!;
      if (c < 0x80) out[n++] = c;
      else if (c < 0x800) {
        out[n++] = 0xc0 | (c >> 6);
        out[n++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdbff && k + 1 < e && b[k + 1]! >= 0xdc00 && b[k + 1]! <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (b[++k]! - 0xdc00);
        out[n++] = 0xf0 | (cp >> 18);
        out[n++] = 0x80 | ((cp >> 12) & 0x3f);
        out[n++] = 0x80 | ((cp >> 6) & 0x3f);
        out[n++] = 0x80 | (cp & 0x3f);
      } else {
        const u = c >= 0xd800 && c <= 0xdfff ? 0xfffd : c;
        lone ||= u !== c;
        out[n++] = 0xe0 | (u >> 12);
        out[n++] = 0x80 | ((u >> 6) & 0x3f);
        out[n++] = 0x80 | (u & 0x3f);
      }
    }
    return { length: n, lone };
  }

  private resize(size: number): void {
    this.buf = new Uint8Array(size);
    this.next = new Int32Array(size);
    this.prev = new Int32Array(size);
    this.pair = new Int32Array(size);
    this.heap = new Float64Array(size * 2);
  }

  /**
   * Token count of the chunk `b[s, e)` (UTF-16 code units). As the library: a chunk that is a token
   * (looked up as a string, so never one with a lone surrogate) counts one; otherwise its bytes are
   * merged pair by pair, the pair of lowest rank first and the leftmost among equal ranks.
   */
  count(b: Uint16Array, s: number, e: number): number {
    // Scratch grown for one huge chunk is not kept past the next count.
    if (this.buf.length > KEEP_BYTES && (e - s) * 3 <= KEEP_BYTES) this.resize(KEEP_BYTES);
    const { length: n, lone } = this.encode(b, s, e);
    const buf = this.buf;
    if (n <= 1) return n;
    if (!lone && this.lookup(buf, 0, n, STRING) >= 0) return 1;
    const next = this.next;
    const prev = this.prev;
    /** Rank of the pair a symbol starts with its right neighbour: -1 none, -2 the symbol merged away. */
    const pair = this.pair;
    const heap = this.heap;
    let size = 0;
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
      const r = i + 1 < n ? this.rankOf(buf, i, i + 2, n) : -1;
      pair[i] = r;
      if (r >= 0) heapPush(heap, size++, r * RANK_SHIFT + i);
    }
    let symbols = n;
    while (size > 0) {
      const key = heap[0]!;
      heapPop(heap, --size);
      const r = Math.floor(key / RANK_SHIFT);
      const i = key - r * RANK_SHIFT;
      // A pair whose left symbol merged away or grew since is stale (a rank fixes the span's length, so
      // the same rank at the same start is the same pair).
      if (pair[i] !== r) continue;
      const j = next[i]!;
      const k = next[j]!;
      pair[j] = -2;
      next[i] = k;
      if (k < n) prev[k] = i;
      symbols--;
      pair[i] = k < n ? this.rankOf(buf, i, next[k]!, n) : -1;
      if (pair[i]! >= 0) heapPush(heap, size++, pair[i]! * RANK_SHIFT + i);
      const p = prev[i]!;
      if (p >= 0) {
        pair[p] = this.rankOf(buf, p, k, n);
        if (pair[p]! >= 0) heapPush(heap, size++, pair[p]! * RANK_SHIFT + p);
      }
    }
    return symbols;
  }
}

/** Adds `key` to the binary min-heap `heap[0, size)`. */
function heapPush(heap: Float64Array, size: number, key: number): void {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= key) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = key;
}

/** Removes the top of the min-heap that had `size + 1` entries (its last, `heap[size]`, moves in). */
function heapPop(heap: Float64Array, size: number): void {
  const last = heap[size]!;
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
    if (heap[child]! >= last) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
}

/** The filter's bit for a hash: bits other than those that pick a token's home slot. */
function filterBit(h: number): number {
  return Math.imul(h, 0x9e3779b1) >>> 11;
}

function hashOf(bytes: Uint8Array, a: number, c: number): number {
  let h = 0x811c9dc5;
  for (let k = a; k < c; k++) h = Math.imul(h ^ bytes[k]!, 0x01000193);
  return h;
}

/** Whether the token at `at` in the arena (its length, then its bytes) is the `len` bytes `y[ya, …)`. */
function sameToken(arena: Uint8Array, at: number, y: Uint8Array, ya: number, len: number): boolean {
  if (arena[at] !== len) return false;
  for (let k = 0; k < len; k++) if (arena[at + 1 + k] !== y[ya + k]) return false;
  return true;
}
