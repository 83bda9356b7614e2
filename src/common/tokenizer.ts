import { createRequire } from 'node:module';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { BpeMerger, type Ranks } from './bpe-merger';
import { CodeUnits } from './code-units';
import { readTokenizerTables } from './o200k-tables';
import { ownSharedFile } from './own-bundle';

/**
 * The one tokenizer used for block sizes and token estimates. It is named in every snapshot manifest so
 * that counts are comparable only between snapshots that used the same one. o200k matches English well
 * and over-counts Chinese against DeepSeek's tokenizer by about a quarter (TECH-NOTES): a safe side for
 * budget admission.
 */
export const TOKENIZER_NAME = 'gpt-tokenizer@4.0.0/o200k_base';

/*
 * BPE never merges across the pre-tokenizer's chunks, so a text's count is the sum of its chunks' counts,
 * and natural text repeats its chunks (words) endlessly. Ingestion counts every byte it indexes, so this
 * is its hottest loop: the chunks are found by a hand-written scanner that follows the o200k pattern's
 * alternatives and backtracking exactly (tested chunk for chunk against the pattern on fixtures and on
 * random text over every character class), and looked up in a cache keyed by the text's own characters,
 * so a repeated chunk costs no string, no array and no rank lookup; a chunk not seen before is merged by
 * BpeMerger over the library's ranks (the library's own merge took three quarters of ingesting unseen
 * Chinese text). Counting chunk by chunk also treats text such as `<|endoftext|>` as text: the
 * library's whole-string count refuses special-token strings, and a document may well mention them.
 */

let merger: BpeMerger | null = null;
/** The tokenizer's tables as `writeTokenizerTables` writes them, next to the bundles (esbuild.mjs). */
const O200K_TABLE = 'o200k.bin';

/**
 * Exact count of the chunk `b[s, e)` from the o200k ranks. Built, the merger comes with the class table
 * from the build's file (see `ready`); run from source, over the package's ranks packed here (required
 * at run time, so no bundle takes in their 3.4 MB of JavaScript, which took a quarter of a second to load).
 */
function bpeCount(b: Uint16Array, s: number, e: number): number {
  if (merger === null) {
    ready();
    merger ??= BpeMerger.fromRanks((createRequire(__filename)('gpt-tokenizer/bpeRanks/o200k_base') as { default: Ranks }).default);
  }
  return merger.count(b, s, e);
}

/** The library's pattern: the reference the scanner is tested against, and the path for astral text. */
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');

// Character classes of the pattern, per UTF-16 code unit.
const LETTER = 1; // \p{L}
const NUMBER = 2; // \p{N}
const UPPERISH = 4; // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const LOWERISH = 8; // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
const SPACE = 16; // \s
const NEWLINE = 32; // [\r\n]
const OTHER = 64; // [^\s\p{L}\p{N}]
const SURROGATE = 128; // half of an astral character: the scanner hands the text to the pattern

/** The pattern's classes, each as a one-character pattern, with the bit that marks its members. */
export const CLASS_PATTERNS: ReadonlyArray<readonly [RegExp, number]> = [
  [/\p{L}/u, LETTER],
  [/\p{N}/u, NUMBER],
  [/[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]/u, UPPERISH],
  [/[\p{Ll}\p{Lm}\p{Lo}\p{M}]/u, LOWERISH],
  [/\s/u, SPACE],
  [/[\r\n]/u, NEWLINE],
  [/[^\s\p{L}\p{N}]/u, OTHER],
];

/**
 * Class bits of every UTF-16 code unit, into `table`. Runs of each class are matched over all code units
 * at once: testing each code unit against each class one by one took 45 ms.
 */
export function fillClassTable(table: Uint8Array): Uint8Array {
  table.fill(0);
  // Every code unit at its own offset; surrogates stand in as spaces (a pair would be one character to
  // the pattern) and are marked on their own below.
  const units: number[] = [];
  for (let c = 0; c < 0x10000; c++) units.push(c >= 0xd800 && c <= 0xdfff ? 0x20 : c);
  let all = '';
  for (let c = 0; c < 0x10000; c += 0x1000) all += String.fromCharCode(...units.slice(c, c + 0x1000));
  for (const [re, bit] of CLASS_PATTERNS) {
    for (const run of all.matchAll(new RegExp(`(?:${re.source})+`, 'gu'))) {
      for (let c = run.index!, end = c + run[0]!.length; c < end; c++) table[c] = table[c]! | bit;
    }
  }
  table.fill(SURROGATE, 0xd800, 0xe000);
  return table;
}

/**
 * The class table, filled at the first count, not when the module loads (commands that count nothing
 * start without it); a binding that never changes, which the scanning loops read fastest. Built, it comes
 * from the build's file with the merger's tables (filled there by this same function); run from source,
 * it is filled here.
 */
const CLS = new Uint8Array(0x10000);
let classesFilled = false;

function ready(): void {
  if (classesFilled) return;
  const shared = (sharedTables = shareTokenizerTables());
  if (shared) {
    const tables = readTokenizerTables(new Uint8Array(shared));
    CLS.set(tables.classes);
    merger = tables.merger;
  } else fillClassTable(CLS);
  classesFilled = true;
}

/** The tables file this thread counts over, in shared memory: undefined until read, null when there is none (run from source). */
let sharedTables: SharedArrayBuffer | null | undefined;

/**
 * The build's tables file as threads share it: the tables this thread counts over, or else read afresh
 * into shared memory (and not kept here: a host that never counts holds them only while its caller
 * does). An ingestion pool hands them to each worker (its workerData), which counts over the same bytes
 * instead of reading a copy of its own (8.9 MB a worker). Null when run from source (no file: the
 * tables are built from the package's ranks).
 */
export function shareTokenizerTables(): SharedArrayBuffer | null {
  return sharedTables !== undefined ? sharedTables : (ownSharedFile(O200K_TABLE) ?? null);
}

/** Counts over the tables another thread shared (shareTokenizerTables); before this thread's first count. */
export function useSharedTokenizerTables(tables: SharedArrayBuffer): void {
  if (classesFilled) throw new Error('internal: the tokenizer tables are in use already');
  sharedTables = tables;
}

/**
 * The text being scanned, as code units (see CodeUnits for why not `charCodeAt`). The view is handed down
 * as a parameter, and the cache's tables read into locals: reading them from module variables that are
 * reassigned cost 15 % of counting (measured A/B on the corpus).
 */
const scratch = new CodeUnits();

const APOSTROPHE = 0x27;

/** End of a run of characters that all have `bit`, from `s`. */
function runEnd(b: Uint16Array, s: number, n: number, bit: number): number {
  while (s < n && (CLS[b[s]!]! & bit) !== 0) s++;
  return s;
}

/** `(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?` at `e`. */
function contraction(b: Uint16Array, e: number, n: number): number {
  if (e + 1 >= n || b[e]! !== APOSTROPHE) return e;
  const a = b[e + 1]! | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return e + 2; // s d m t
  if (e + 2 >= n) return e;
  const c = b[e + 2]! | 0x20;
  if ((a === 0x6c && c === 0x6c) || (a === 0x76 && c === 0x65) || (a === 0x72 && c === 0x65)) return e + 3; // ll ve re
  return e;
}

/** `[UPPERISH]*[LOWERISH]+ contraction?` from `s`, with the regex's backtracking; -1 when it fails. */
function upperThenLower(b: Uint16Array, s: number, n: number): number {
  const k = runEnd(b, s, n, UPPERISH);
  if (k < n && (CLS[b[k]!]! & LOWERISH) !== 0) return contraction(b, runEnd(b, k, n, LOWERISH), n);
  // Backtracking gives characters back one by one until one can start [LOWERISH]+; the run it starts
  // ends right there, since nothing after it in the [UPPERISH] run is LOWERISH.
  for (let j = k - 1; j >= s; j--) if ((CLS[b[j]!]! & LOWERISH) !== 0) return contraction(b, j + 1, n);
  return -1;
}

/** `[UPPERISH]+[LOWERISH]* contraction?` from `s`; -1 when it fails. */
function upperPlus(b: Uint16Array, s: number, n: number): number {
  const k = runEnd(b, s, n, UPPERISH);
  return k === s ? -1 : contraction(b, runEnd(b, k, n, LOWERISH), n);
}

/**
 * End of the o200k pre-tokenizer chunk that starts at `i` (BMP text), or -1 if none does. The alternatives,
 * in the pattern's order:
 *  1. `[^\r\n\p{L}\p{N}]?[UPPERISH]*[LOWERISH]+contraction?`   2. `[^\r\n\p{L}\p{N}]?[UPPERISH]+[LOWERISH]*contraction?`
 *  3. `\p{N}{1,3}`   4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`   5. `\s*[\r\n]+`   6. `\s+(?!\S)`   7. `\s+`
 */
function chunkEnd(b: Uint16Array, i: number, n: number): number {
  const c = CLS[b[i]!]!;
  const prefix = (c & (LETTER | NUMBER | NEWLINE)) === 0 && i + 1 < n;
  let e: number;
  if (prefix && (e = upperThenLower(b, i + 1, n)) >= 0) return e;
  if ((e = upperThenLower(b, i, n)) >= 0) return e;
  if (prefix && (e = upperPlus(b, i + 1, n)) >= 0) return e;
  if ((e = upperPlus(b, i, n)) >= 0) return e;
  if (c & NUMBER) {
    e = i + 1;
    while (e < n && e < i + 3 && (CLS[b[e]!]! & NUMBER) !== 0) e++;
    return e;
  }
  const s = b[i]! === 0x20 && i + 1 < n && (CLS[b[i + 1]!]! & OTHER) !== 0 ? i + 1 : i;
  if (CLS[b[s]!]! & OTHER) {
    e = runEnd(b, s, n, OTHER);
    for (let ch = b[e]!; e < n && (ch === 0x0d || ch === 0x0a || ch === 0x2f); ch = b[++e]!);
    return e;
  }
  if ((c & SPACE) === 0) return -1;
  const k = runEnd(b, i, n, SPACE);
  for (let j = k - 1; j >= i; j--) if (CLS[b[j]!]! & NEWLINE) return j + 1;
  if (k === n) return n;
  return k - 1 > i ? k - 1 : k;
}

/*
 * Chunk counts by text: open addressing over one Int32Array of [hash, arena offset] slot pairs; the arena
 * (one Uint16Array) holds each chunk as its length, its count, then its characters. A hit touches two
 * places in memory, the slot and the arena, where string keys in a pointer array took three scattered
 * ones and a builtin call to compare: the lookup was half of counting. The table starts small and doubles
 * at half load, so a few thousand distinct chunks stay in the processor's cache.
 */
const MAX_ENTRIES = 1 << 17;
const ARENA_CHARS = 1 << 21;
/** Longer chunks (long runs of one class) rarely repeat: counted without being kept. */
const MAX_CACHED_LENGTH = 64;
let capacity = 1 << 13;
/** Pairs [hash, arena offset + 1]; 0 marks a free slot. */
let slots = new Int32Array(capacity * 2);
let entries = 0;
const arena = new Uint16Array(ARENA_CHARS);
let arenaUsed = 0;
/** Counts of one-character chunks (punctuation, single spaces, CJK characters) by char code. */
const single = new Int32Array(0x10000).fill(-1);

/** Where probing for hash `h` starts in a table of `capacity` slots. */
function home(h: number): number {
  return (h ^ (h >>> 15)) & (capacity - 1);
}

function grow(): void {
  const old = slots;
  capacity *= 2;
  slots = new Int32Array(capacity * 2);
  const mask = capacity - 1;
  for (let b = 0; b < old.length; b += 2) {
    if (old[b + 1] === 0) continue;
    const h = old[b]!;
    let slot = home(h);
    while (slots[slot * 2 + 1] !== 0) slot = (slot + 1) & mask;
    slots[slot * 2] = h;
    slots[slot * 2 + 1] = old[b + 1]!;
  }
}

/** Count of the chunk `b[s, e)` (code units of the text being counted). */
function chunkCount(b: Uint16Array, s: number, e: number): number {
  const len = e - s;
  if (len === 1) {
    const code = b[s]!;
    let n = single[code]!;
    if (n < 0) single[code] = n = bpeCount(b, s, e);
    return n;
  }
  if (len > MAX_CACHED_LENGTH) return bpeCount(b, s, e);
  let h = 0x811c9dc5;
  for (let k = s; k < e; k++) h = Math.imul(h ^ b[k]!, 0x01000193);
  const table = slots;
  const store = arena;
  const mask = capacity - 1;
  let slot = home(h);
  for (let at = table[slot * 2 + 1]!; at !== 0; at = table[slot * 2 + 1]!) {
    if (table[slot * 2] === h && store[at - 1] === len) {
      let k = 0;
      while (k < len && store[at + 1 + k] === b[s + k]) k++;
      if (k === len) return store[at]!;
    }
    slot = (slot + 1) & mask;
  }
  return addChunk(b, s, e, h);
}

/** Counts a chunk the cache does not have, and keeps it. */
function addChunk(b: Uint16Array, s: number, e: number, h: number): number {
  const len = e - s;
  const count = bpeCount(b, s, e);
  if (entries >= MAX_ENTRIES || arenaUsed + len + 2 > ARENA_CHARS) {
    slots.fill(0);
    entries = 0;
    arenaUsed = 0;
  } else if ((entries + 1) * 2 > capacity) grow();
  const mask = capacity - 1;
  let slot = home(h);
  while (slots[slot * 2 + 1] !== 0) slot = (slot + 1) & mask;
  slots[slot * 2] = h;
  slots[slot * 2 + 1] = arenaUsed + 1;
  arena[arenaUsed] = len;
  arena[arenaUsed + 1] = count;
  arena.set(b.subarray(s, e), arenaUsed + 2);
  arenaUsed += len + 2;
  entries++;
  return count;
}

/** Count of one chunk given as a string. */
function countOfChunk(chunk: string): number {
  ready();
  return chunkCount(scratch.load(chunk), 0, chunk.length);
}

/** A text's token count and its first and last pre-tokenizer chunks (what a join can change). */
export interface TokenCount {
  tokens: number;
  /** Number of pre-tokenizer chunks. */
  chunks: number;
  head: string;
  tail: string;
}

const NOTHING: TokenCount = { tokens: 0, chunks: 0, head: '', tail: '' };

/** Text with astral characters (emoji, rare CJK): chunks from the pattern itself. */
function countByPattern(text: string, b: Uint16Array): TokenCount {
  let tokens = 0;
  let chunks = 0;
  let head = '';
  let tail = '';
  for (const m of text.matchAll(SPLIT)) {
    tokens += chunkCount(b, m.index, m.index + m[0].length);
    if (chunks++ === 0) head = m[0];
    tail = m[0];
  }
  return chunks === 0 ? NOTHING : { tokens, chunks, head, tail };
}

export function countWithTail(text: string): TokenCount {
  ready();
  const b = scratch.load(text);
  const n = text.length;
  let tokens = 0;
  let chunks = 0;
  let headEnd = 0;
  let lastStart = 0;
  for (let i = 0; i < n; ) {
    if (CLS[b[i]!]! & SURROGATE) return countByPattern(text, b);
    const e = chunkEnd(b, i, n);
    if (e < 0) {
      i++; // a character no alternative matches is skipped, as a global match skips it
      continue;
    }
    tokens += chunkCount(b, i, e);
    if (chunks++ === 0) headEnd = e;
    lastStart = i;
    i = e;
  }
  if (chunks === 0) return NOTHING;
  return { tokens, chunks, head: text.slice(0, headEnd), tail: text.slice(lastStart) };
}

/**
 * The chunks counting uses, as the pattern's `match` would return them (for tests and tools): the
 * scanner's, or, for text with astral characters, the pattern's own, as in countWithTail.
 */
export function preTokenize(text: string): string[] {
  ready();
  const b = scratch.load(text);
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    if (CLS[b[i]!]! & SURROGATE) return text.match(SPLIT) ?? [];
    const e = chunkEnd(b, i, text.length);
    if (e < 0) i++;
    else {
      out.push(text.slice(i, e));
      i = e;
    }
  }
  return out;
}

export function countTokens(text: string): number {
  return countWithTail(text).tokens;
}

/**
 * Exact count of `a + sep + b` from the parts' counts, for a separator made of line breaks and texts
 * that neither end nor start with white space. Only the chunks next to the seam can change: `a`'s last
 * chunk can take the line breaks in (`.` + `\n\n` is one chunk) and even `b`'s leading slashes
 * (`}\n\n//`), so the seam `a.tail + sep + b.head` is re-counted; chunking realigns after `b.head`.
 * Tested against whole-string counts on every fixture paragraph pair.
 */
export function countJoined(a: TokenCount, sep: string, b: TokenCount): TokenCount {
  if (a.tokens === 0 || b.tokens === 0) {
    const only = a.tokens === 0 ? b : a;
    return only;
  }
  const seam = countWithTail(a.tail + sep + b.head);
  return {
    tokens: a.tokens - countOfChunk(a.tail) + seam.tokens + b.tokens - countOfChunk(b.head),
    chunks: a.chunks - 1 + seam.chunks + b.chunks - 1,
    head: a.chunks === 1 ? seam.head : a.head,
    tail: b.chunks === 1 ? seam.tail : b.tail,
  };
}
