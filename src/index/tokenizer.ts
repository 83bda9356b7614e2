import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/**
 * The one tokenizer used for block sizes and token estimates. It is named in every snapshot manifest so
 * that counts are comparable only between snapshots that used the same one. o200k matches English well
 * and over-counts Chinese against DeepSeek's tokenizer by about a quarter (TECH-NOTES): a safe side for
 * budget admission.
 */
export const TOKENIZER_NAME = 'gpt-tokenizer@4.0.0/o200k_base';

/**
 * BPE never merges across the pre-tokenizer's chunks, so a text's count is the sum of its chunks' counts.
 * Natural text repeats its words endlessly; caching per chunk skips the rank lookups that dominate
 * ingestion time. Counting chunk by chunk also treats text such as `<|endoftext|>` as text: the library's
 * whole-string count refuses special-token strings, and a document may well mention them.
 */
const CACHE_LIMIT = 200_000;
/** `String.prototype.match` with a global regex returns every chunk at once, cheaper than an exec loop. */
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
/**
 * The same pattern for text that is pure ASCII, with the Unicode property classes spelled out over ASCII
 * (letters A–Z a–z, digits 0–9, no marks): twice as fast, and chunk-for-chunk identical on such text
 * (tested against the library's pattern on the fixtures and on random ASCII).
 */
const CONTRACTION = "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])";
export const SPLIT_ASCII = new RegExp(
  `[^\\r\\nA-Za-z0-9]?[A-Z]*[a-z]+(?:${CONTRACTION})?|[^\\r\\nA-Za-z0-9]?[A-Z]+[a-z]*(?:${CONTRACTION})?|[0-9]{1,3}| ?[^\\sA-Za-z0-9]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+`,
  'g',
);
// eslint-disable-next-line no-control-regex -- "every character is ASCII" is the test
const ASCII_ONLY = /^[\u0000-\u007f]*$/;
const cache = new Map<string, number>();

/** Counts of one-character chunks (punctuation, single spaces, CJK characters) by char code: no hashing. */
const single = new Int32Array(0x10000).fill(-1);

function chunkCount(chunk: string): number {
  if (chunk.length === 1) {
    const code = chunk.charCodeAt(0);
    let n = single[code]!;
    if (n < 0) single[code] = n = o200kCount(chunk);
    return n;
  }
  let c = cache.get(chunk);
  if (c === undefined) {
    c = o200kCount(chunk);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(chunk, c);
  }
  return c;
}

/** A text's token count and its first and last pre-tokenizer chunks (what a join can change). */
export interface TokenCount {
  tokens: number;
  /** Number of pre-tokenizer chunks. */
  chunks: number;
  head: string;
  tail: string;
}

export function countWithTail(text: string): TokenCount {
  const parts = text.match(ASCII_ONLY.test(text) ? SPLIT_ASCII : SPLIT);
  if (!parts) return { tokens: 0, chunks: 0, head: '', tail: '' };
  let tokens = 0;
  for (const p of parts) tokens += chunkCount(p);
  return { tokens, chunks: parts.length, head: parts[0]!, tail: parts[parts.length - 1]! };
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
    tokens: a.tokens - chunkCount(a.tail) + seam.tokens + b.tokens - chunkCount(b.head),
    chunks: a.chunks - 1 + seam.chunks + b.chunks - 1,
    head: a.chunks === 1 ? seam.head : a.head,
    tail: b.chunks === 1 ? seam.tail : b.tail,
  };
}
