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

/**
 * A loaded pack's terms: all decoded as one string at once and sliced when a query looks one up (a
 * binary search touches ~17). Decoding and parsing 131k terms as a JSON list took ~40 ms of a 10k-block
 * load; this takes ~3.
 */
export class PackedTerms implements TermTable {
  readonly length: number;
  private readonly text: string;

  /** Throws when `starts` does not describe `chars` (a damaged file). */
  constructor(
    chars: Uint16Array,
    private readonly starts: Uint32Array,
  ) {
    this.length = starts.length - 1;
    if (this.length < 0 || starts[0] !== 0 || starts[this.length] !== chars.length) throw new Error('term starts do not match the term characters');
    for (let i = 0; i < this.length; i++) if (starts[i]! > starts[i + 1]!) throw new Error('term starts are not in order');
    // Little-endian code units, as the pack stores every array: one copy into a two-byte string.
    this.text = Buffer.from(chars.buffer, chars.byteOffset, chars.byteLength).toString('utf16le');
  }

  at(i: number): string | undefined {
    return i >= 0 && i < this.length ? this.text.slice(this.starts[i], this.starts[i + 1]) : undefined;
  }
}
