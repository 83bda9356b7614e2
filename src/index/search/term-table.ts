import { type TakeBuffer, freshBuffer } from './buffer-pool';

/** A keyword index's terms, sorted: a plain array when just built, packed when loaded from disk. */
export interface TermTable {
  readonly length: number;
  at(i: number): string | undefined;
}

/** Terms as a keyword pack stores them: their UTF-16 code units one after another, and where each starts. */
export function packTerms(terms: TermTable, take: TakeBuffer = freshBuffer): { chars: Uint16Array; starts: Uint32Array } {
  let total = 0;
  for (let i = 0; i < terms.length; i++) total += terms.at(i)!.length;
  const chars = new Uint16Array(take(2 * total), 0, total);
  const starts = new Uint32Array(take(4 * (terms.length + 1)), 0, terms.length + 1);
  let p = 0;
  for (let i = 0; i < terms.length; i++) {
    const t = terms.at(i)!;
    starts[i] = p;
    for (let k = 0; k < t.length; k++) chars[p++] = t.charCodeAt(k);
  }
  starts[terms.length] = p;
  return { chars, starts };
}

/** Terms per piece decoded at once: 16,384 block ids are a few hundred kilobytes of characters. */
const PIECE_SHIFT = 14;

/**
 * A loaded pack's terms, decoded a piece at a time when a lookup first reads the piece, and sliced from
 * it (a binary search touches ~17 terms). Decoding and parsing 131k terms as a JSON list took ~40 ms of
 * a 10k-block load; decoding all of a million block ids at once, one 10 ms step of a 1M-block load
 * (a search then reads a handful of them).
 */
export class PackedTerms implements TermTable {
  readonly length: number;
  private readonly pieces: Array<string | undefined>;

  /** Throws when `starts` does not describe `chars` (a damaged file). */
  constructor(
    private readonly chars: Uint16Array,
    private readonly starts: Uint32Array,
  ) {
    this.length = starts.length - 1;
    if (this.length < 0 || starts[0] !== 0 || starts[this.length] !== chars.length) throw new Error('term starts do not match the term characters');
    for (let i = 0; i < this.length; i++) if (starts[i]! > starts[i + 1]!) throw new Error('term starts are not in order');
    this.pieces = new Array<string | undefined>((this.length >>> PIECE_SHIFT) + 1);
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    const p = i >>> PIECE_SHIFT;
    const base = this.starts[p << PIECE_SHIFT]!;
    let text = this.pieces[p];
    if (text === undefined) {
      const end = this.starts[Math.min(this.length, (p + 1) << PIECE_SHIFT)]!;
      // Little-endian code units, as the pack stores every array: one copy into a two-byte string.
      text = Buffer.from(this.chars.buffer, this.chars.byteOffset + 2 * base, 2 * (end - base)).toString('utf16le');
      this.pieces[p] = text;
    }
    return text.slice(this.starts[i]! - base, this.starts[i + 1]! - base);
  }
}
