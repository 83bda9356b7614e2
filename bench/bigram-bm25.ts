/**
 * The bench's reference for keyword retrieval, independent of DocQA's index code: textbook Okapi BM25
 * (k1 1.2, b 0.75) over character bigrams, written plainly from the formula. Sharing DocQA's tokenizer
 * would let it only ever tie (it did: a tokenizer bug cost both the same 4 points on CMRC 2018).
 */
import { topK } from '../src/index/search/hybrid-search';

const K1 = 1.2;
const B = 0.75;
const HAN = /\p{Script=Han}/u;
const WORD = /[\p{L}\p{N}\p{M}]/u;

/** Han runs → their character bigrams (a run of one character: itself); other letters and digits → NFKC lower-case words. */
export function bigramTokens(text: string): string[] {
  const out: string[] = [];
  let word = '';
  let han: string[] = [];
  const endWord = () => {
    if (word) out.push(word);
    word = '';
  };
  const endHan = () => {
    if (han.length === 1) out.push(han[0]!);
    for (let i = 0; i + 1 < han.length; i++) out.push(han[i]! + han[i + 1]!);
    han = [];
  };
  for (const ch of text.normalize('NFKC').toLowerCase()) {
    if (HAN.test(ch)) {
      endWord();
      han.push(ch);
    } else if (WORD.test(ch)) {
      endHan();
      word += ch;
    } else {
      endWord();
      endHan();
    }
  }
  endWord();
  endHan();
  return out;
}

/** A ranker over `docs`: the indices of the top k by BM25 for a query's distinct bigram terms (ties: lower index). */
export function bigramBm25(docs: readonly string[]): (query: string, k: number) => number[] {
  const index = docs.map((d) => {
    const tf = new Map<string, number>();
    const toks = bigramTokens(d);
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, len: toks.length };
  });
  const N = index.length;
  const avgdl = index.reduce((s, d) => s + d.len, 0) / N;
  const df = new Map<string, number>();
  for (const d of index) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  return (query, k) => {
    const terms = [...new Set(bigramTokens(query))];
    const scores = new Float64Array(N);
    index.forEach((d, i) => {
      let s = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const n = df.get(t)!;
        s += Math.log(1 + (N - n + 0.5) / (n + 0.5)) * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.len) / avgdl)));
      }
      scores[i] = s;
    });
    return topK(scores, k, 0);
  };
}
