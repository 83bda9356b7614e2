import { keywordTokens } from './keyword-tokenizer';

/** Okapi BM25 parameters: the textbook values. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * An inverted index over blocks (0..n-1 in global block order), stored as flat typed arrays so it loads
 * without parsing: terms sorted, postings by term (block ids ascending) with term frequencies. Term
 * frequency is kept (Orama de-duplicates tokens and loses it).
 */
export interface Bm25Data {
  terms: string[];
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

export class Bm25Index {
  private readonly avgdl: number;

  constructor(readonly data: Bm25Data) {
    let sum = 0;
    for (const l of data.docLengths) sum += l;
    this.avgdl = data.docLengths.length ? sum / data.docLengths.length : 0;
  }

  get size(): number {
    return this.data.docLengths.length;
  }

  /** Terms are stored sorted: a binary search finds one without building a map at load time. */
  private termId(term: string): number | undefined {
    const terms = this.data.terms;
    let lo = 0;
    let hi = terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = terms[mid]!;
      if (t === term) return mid;
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /**
   * BM25 scores of every block for the query's distinct terms (0 where no term matches); `allowed`
   * limits the blocks considered. idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
   */
  score(query: string, allowed?: (block: number) => boolean): Float64Array {
    const { offsets, blocks, tfs, docLengths } = this.data;
    const n = this.size;
    const scores = new Float64Array(n);
    for (const term of new Set(keywordTokens(query))) {
      const id = this.termId(term);
      if (id === undefined) continue;
      const start = offsets[id]!;
      const end = offsets[id + 1]!;
      const df = end - start;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let p = start; p < end; p++) {
        const b = blocks[p]!;
        if (allowed && !allowed(b)) continue;
        const tf = tfs[p]!;
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * docLengths[b]!) / this.avgdl);
        scores[b]! += (idf * tf * (BM25_K1 + 1)) / norm;
      }
    }
    return scores;
  }
}
