import { keywordTokens } from './keyword-tokenizer';
import type { TermTable } from './term-table';

/** Okapi BM25 parameters: the textbook values. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * An inverted index over blocks (0..n-1 in global block order), stored as flat typed arrays so it loads
 * without parsing: terms sorted, postings by term (block ids ascending) with term frequencies. Term
 * frequency is kept (Orama de-duplicates tokens and loses it).
 */
export interface Bm25Data {
  terms: TermTable;
  /** postings of term t are [offsets[t], offsets[t+1]) */
  offsets: Uint32Array;
  blocks: Uint32Array;
  tfs: Uint16Array;
  docLengths: Uint32Array;
}

function addBlock(perTerm: Map<string, number[]>, docLengths: Uint32Array, text: string, block: number): void {
  const toks = keywordTokens(text);
  docLengths[block] = toks.length;
  const tf = new Map<string, number>();
  for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
  for (const [t, n] of tf) {
    let list = perTerm.get(t);
    if (!list) perTerm.set(t, (list = []));
    list.push(block, Math.min(n, 65535));
  }
}

export function buildBm25(texts: readonly string[]): Bm25Data {
  const perTerm = new Map<string, number[]>(); // flat [block, tf, block, tf, ...]
  const docLengths = new Uint32Array(texts.length);
  texts.forEach((text, block) => addBlock(perTerm, docLengths, text, block));
  return finish(perTerm, docLengths);
}

const YIELD_EVERY = 2000;

/**
 * The same index, built in slices that give the event loop back between them (the extension host must
 * not freeze on a large collection), and cancellable between slices.
 */
export async function buildBm25Yielding(texts: readonly string[], signal?: AbortSignal): Promise<Bm25Data> {
  const perTerm = new Map<string, number[]>();
  const docLengths = new Uint32Array(texts.length);
  for (let start = 0; start < texts.length; start += YIELD_EVERY) {
    signal?.throwIfAborted();
    const end = Math.min(texts.length, start + YIELD_EVERY);
    for (let b = start; b < end; b++) addBlock(perTerm, docLengths, texts[b]!, b);
    await new Promise<void>((r) => setImmediate(r));
  }
  return finish(perTerm, docLengths);
}

function finish(perTerm: Map<string, number[]>, docLengths: Uint32Array): Bm25Data {
  const terms = [...perTerm.keys()].sort();
  let total = 0;
  for (const t of terms) total += perTerm.get(t)!.length / 2;
  const offsets = new Uint32Array(terms.length + 1);
  const blocks = new Uint32Array(total);
  const tfs = new Uint16Array(total);
  let pos = 0;
  terms.forEach((t, i) => {
    offsets[i] = pos;
    const list = perTerm.get(t)!;
    for (let j = 0; j < list.length; j += 2) {
      blocks[pos] = list[j]!;
      tfs[pos] = list[j + 1]!;
      pos++;
    }
  });
  offsets[terms.length] = pos;
  return { terms, offsets, blocks, tfs, docLengths };
}

/**
 * One segment's index as part of a snapshot: its local block numbers map to the snapshot's global ones;
 * -1 marks a block of a document the snapshot no longer holds (replaced or removed). null: the identity.
 */
export interface Bm25Part {
  data: Bm25Data;
  toGlobal: Int32Array | null;
}

/** Terms are stored sorted: a binary search finds one without building a map at load time. */
function termId(terms: TermTable, term: string): number | undefined {
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = terms.at(mid)!;
    if (t === term) return mid;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/**
 * BM25 over a snapshot's segments. N, document frequencies and the average length count live blocks
 * only, so a snapshot made of several segments scores every block exactly as one index built over the
 * same blocks would (same numbers, same order of additions).
 */
export class Bm25Index {
  readonly size: number;
  private readonly parts: readonly Bm25Part[];
  private readonly avgdl: number;

  constructor(data: Bm25Data);
  constructor(parts: readonly Bm25Part[], size: number);
  constructor(data: Bm25Data | readonly Bm25Part[], size?: number) {
    this.parts = Array.isArray(data) ? data : [{ data: data as Bm25Data, toGlobal: null }];
    this.size = size ?? (data as Bm25Data).docLengths.length;
    let sum = 0;
    for (const { data: d, toGlobal } of this.parts) {
      for (let b = 0; b < d.docLengths.length; b++) if (!toGlobal || toGlobal[b]! >= 0) sum += d.docLengths[b]!;
    }
    this.avgdl = this.size ? sum / this.size : 0;
  }

  /**
   * BM25 scores of every block for the query's distinct terms (0 where no term matches); `allowed`
   * limits the blocks considered. idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
   */
  score(query: string, allowed?: (block: number) => boolean): Float64Array {
    const n = this.size;
    const scores = new Float64Array(n);
    const ids = new Array<number | undefined>(this.parts.length);
    for (const term of new Set(keywordTokens(query))) {
      let df = 0;
      this.parts.forEach(({ data, toGlobal }, i) => {
        const id = (ids[i] = termId(data.terms, term));
        if (id === undefined) return;
        if (!toGlobal) df += data.offsets[id + 1]! - data.offsets[id]!;
        else for (let p = data.offsets[id]!; p < data.offsets[id + 1]!; p++) if (toGlobal[data.blocks[p]!]! >= 0) df++;
      });
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      this.parts.forEach(({ data, toGlobal }, i) => {
        const id = ids[i];
        if (id === undefined) return;
        const { offsets, blocks, tfs, docLengths } = data;
        for (let p = offsets[id]!, end = offsets[id + 1]!; p < end; p++) {
          const local = blocks[p]!;
          const b = toGlobal ? toGlobal[local]! : local;
          if (b < 0 || (allowed && !allowed(b))) continue;
          const tf = tfs[p]!;
          const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * docLengths[local]!) / this.avgdl);
          scores[b]! += (idf * tf * (BM25_K1 + 1)) / norm;
        }
      });
    }
    return scores;
  }
}
