import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

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
 * so a repeated chunk costs no string, no array and no rank lookup. Counting chunk by chunk also treats
 * text such as `<|endoftext|>` as text: the library's whole-string count refuses special-token strings,
 * and a document may well mention them.
 */

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

function classTable(): Uint8Array {
  const table = new Uint8Array(0x10000);
  const tests: Array<[RegExp, number]> = [
    [/\p{L}/u, LETTER],
    [/\p{N}/u, NUMBER],
    [/[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]/u, UPPERISH],
    [/[\p{Ll}\p{Lm}\p{Lo}\p{M}]/u, LOWERISH],
    [/\s/u, SPACE],
    [/[\r\n]/u, NEWLINE],
    [/[^\s\p{L}\p{N}]/u, OTHER],
  ];
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      table[c] = SURROGATE;
      continue;
    }
    const ch = String.fromCharCode(c);
    let bits = 0;
    for (const [re, bit] of tests) if (re.test(ch)) bits |= bit;
    table[c] = bits;
  }
  return table;
}
const CLS = classTable();

const APOSTROPHE = 0x27;

/** End of a run of characters that all have `bit`, from `s`. */
function runEnd(text: string, s: number, n: number, bit: number): number {
  while (s < n && (CLS[text.charCodeAt(s)]! & bit) !== 0) s++;
  return s;
}

/** `(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?` at `e`. */
function contraction(text: string, e: number, n: number): number {
  if (e + 1 >= n || text.charCodeAt(e) !== APOSTROPHE) return e;
  const a = text.charCodeAt(e + 1) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return e + 2; // s d m t
  if (e + 2 >= n) return e;
  const b = text.charCodeAt(e + 2) | 0x20;
  if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return e + 3; // ll ve re
  return e;
}

/** `[UPPERISH]*[LOWERISH]+ contraction?` from `s`, with the regex's backtracking; -1 when it fails. */
function upperThenLower(text: string, s: number, n: number): number {
  const k = runEnd(text, s, n, UPPERISH);
  if (k < n && (CLS[text.charCodeAt(k)]! & LOWERISH) !== 0) return contraction(text, runEnd(text, k, n, LOWERISH), n);
  // Backtracking gives characters back one by one until one can start [LOWERISH]+; the run it starts
  // ends right there, since nothing after it in the [UPPERISH] run is LOWERISH.
  for (let j = k - 1; j >= s; j--) if ((CLS[text.charCodeAt(j)]! & LOWERISH) !== 0) return contraction(text, j + 1, n);
  return -1;
}

/** `[UPPERISH]+[LOWERISH]* contraction?` from `s`; -1 when it fails. */
function upperPlus(text: string, s: number, n: number): number {
  const k = runEnd(text, s, n, UPPERISH);
  return k === s ? -1 : contraction(text, runEnd(text, k, n, LOWERISH), n);
}

/**
 * End of the o200k pre-tokenizer chunk that starts at `i` (BMP text), or -1 if none does. The alternatives,
 * in the pattern's order:
 *  1. `[^\r\n\p{L}\p{N}]?[UPPERISH]*[LOWERISH]+contraction?`   2. `[^\r\n\p{L}\p{N}]?[UPPERISH]+[LOWERISH]*contraction?`
 *  3. `\p{N}{1,3}`   4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`   5. `\s*[\r\n]+`   6. `\s+(?!\S)`   7. `\s+`
 */
export function chunkEnd(text: string, i: number, n: number): number {
  const c = CLS[text.charCodeAt(i)]!;
  const prefix = (c & (LETTER | NUMBER | NEWLINE)) === 0 && i + 1 < n;
  let e: number;
  if (prefix && (e = upperThenLower(text, i + 1, n)) >= 0) return e;
  if ((e = upperThenLower(text, i, n)) >= 0) return e;
  if (prefix && (e = upperPlus(text, i + 1, n)) >= 0) return e;
  if ((e = upperPlus(text, i, n)) >= 0) return e;
  if (c & NUMBER) {
    e = i + 1;
    while (e < n && e < i + 3 && (CLS[text.charCodeAt(e)]! & NUMBER) !== 0) e++;
    return e;
  }
  const s = text.charCodeAt(i) === 0x20 && i + 1 < n && (CLS[text.charCodeAt(i + 1)]! & OTHER) !== 0 ? i + 1 : i;
  if (CLS[text.charCodeAt(s)]! & OTHER) {
    e = runEnd(text, s, n, OTHER);
    for (let ch = text.charCodeAt(e); e < n && (ch === 0x0d || ch === 0x0a || ch === 0x2f); ch = text.charCodeAt(++e));
    return e;
  }
  if ((c & SPACE) === 0) return -1;
  const k = runEnd(text, i, n, SPACE);
  for (let j = k - 1; j >= i; j--) if (CLS[text.charCodeAt(j)]! & NEWLINE) return j + 1;
  if (k === n) return n;
  return k - 1 > i ? k - 1 : k;
}

/** Chunk counts by text, open addressing; keys are the chunks, compared in place in the text. */
const SLOTS = 1 << 19;
const MASK = SLOTS - 1;
const CACHE_LIMIT = 200_000;
const keys: string[] = new Array<string>(SLOTS).fill('');
const values = new Int32Array(SLOTS);
let cached = 0;
/** Counts of one-character chunks (punctuation, single spaces, CJK characters) by char code. */
const single = new Int32Array(0x10000).fill(-1);

function chunkCount(text: string, s: number, e: number): number {
  if (e - s === 1) {
    const code = text.charCodeAt(s);
    let n = single[code]!;
    if (n < 0) single[code] = n = o200kCount(text[s]!);
    return n;
  }
  let h = 0x811c9dc5;
  for (let k = s; k < e; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
  const len = e - s;
  let slot = (h ^ (h >>> 15)) & MASK;
  for (let key = keys[slot]!; key.length !== 0; key = keys[slot]!) {
    if (key.length === len && text.startsWith(key, s)) return values[slot]!;
    slot = (slot + 1) & MASK;
  }
  const chunk = text.slice(s, e);
  const count = o200kCount(chunk);
  if (cached >= CACHE_LIMIT) {
    keys.fill('');
    cached = 0;
    slot = (h ^ (h >>> 15)) & MASK;
  }
  keys[slot] = chunk;
  values[slot] = count;
  cached++;
  return count;
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
function countByPattern(text: string): TokenCount {
  const parts = text.match(SPLIT);
  if (!parts) return NOTHING;
  let tokens = 0;
  for (const p of parts) tokens += chunkCount(p, 0, p.length);
  return { tokens, chunks: parts.length, head: parts[0]!, tail: parts[parts.length - 1]! };
}

export function countWithTail(text: string): TokenCount {
  const n = text.length;
  let tokens = 0;
  let chunks = 0;
  let headEnd = 0;
  let lastStart = 0;
  for (let i = 0; i < n; ) {
    if (CLS[text.charCodeAt(i)]! & SURROGATE) return countByPattern(text);
    const e = chunkEnd(text, i, n);
    if (e < 0) {
      i++; // a character no alternative matches is skipped, as a global match skips it
      continue;
    }
    tokens += chunkCount(text, i, e);
    if (chunks++ === 0) headEnd = e;
    lastStart = i;
    i = e;
  }
  if (chunks === 0) return NOTHING;
  return { tokens, chunks, head: text.slice(0, headEnd), tail: text.slice(lastStart) };
}

/** The scanner's chunks of a text, as the pattern's `match` would return them (for tests and tools). */
export function preTokenize(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const e = chunkEnd(text, i, text.length);
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
    tokens: a.tokens - chunkCount(a.tail, 0, a.tail.length) + seam.tokens + b.tokens - chunkCount(b.head, 0, b.head.length),
    chunks: a.chunks - 1 + seam.chunks + b.chunks - 1,
    head: a.chunks === 1 ? seam.head : a.head,
    tail: b.chunks === 1 ? seam.tail : b.tail,
  };
}
