import type { Bm25Index } from './bm25-index';
import type { VectorIndex } from './vector-index';

/** Reciprocal-rank fusion constant (Cormack et al. 2009): scale-free, so BM25 and cosine need no calibration. */
export const RRF_K = 60;
/** How deep each side's ranking goes into the fusion. */
export const FUSION_DEPTH = 50;

export interface HybridHit {
  /** Global block index (blocks are ordered by doc_id, then block_index). */
  block: number;
  fused: number;
  bm25: number | null;
  cosine: number | null;
  bm25_rank: number | null;
  vector_rank: number | null;
}

/**
 * Indices of the top `k` scores, best first; ties go to the lower index (document, then block order).
 * One pass keeping a small sorted buffer: no sort of all n scores. Scanning in index order and admitting
 * only strictly better scores once the buffer is full is what gives ties to the lower index.
 */
export function topK(scores: Float64Array, k: number, minExclusive = -Infinity): number[] {
  const best: number[] = [];
  if (k <= 0) return best;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (!(s > minExclusive)) continue;
    if (best.length === k) {
      if (!(s > scores[best[k - 1]!]!)) continue;
      best.pop();
    }
    let p = best.length;
    while (p > 0 && s > scores[best[p - 1]!]!) p--;
    best.splice(p, 0, i);
  }
  return best;
}

/**
 * The fixed hybrid ranking of search_blocks: the top FUSION_DEPTH of BM25 (score > 0) and of cosine are
 * fused by RRF, score = Σ 1/(RRF_K + rank); ties break by global block order. Without a query vector
 * (keyword-only mode) the BM25 ranking is used as is.
 */
export function hybridSearch(bm25: Bm25Index, vectors: VectorIndex | null, query: string, queryVector: Float32Array | null, k: number, allowed?: (block: number) => boolean): HybridHit[] {
  const kw = bm25.score(query, allowed);
  const kwTop = topK(kw, FUSION_DEPTH, 0);
  const hits = new Map<number, HybridHit>();
  kwTop.forEach((b, r) => hits.set(b, { block: b, fused: 1 / (RRF_K + r + 1), bm25: kw[b]!, cosine: null, bm25_rank: r + 1, vector_rank: null }));
  if (vectors && queryVector) {
    const cos = vectors.score(queryVector, allowed);
    topK(cos, FUSION_DEPTH).forEach((b, r) => {
      const h = hits.get(b) ?? { block: b, fused: 0, bm25: kw[b]! > 0 ? kw[b]! : null, cosine: null, bm25_rank: null, vector_rank: null };
      h.fused += 1 / (RRF_K + r + 1);
      h.cosine = cos[b]!;
      h.vector_rank = r + 1;
      hits.set(b, h);
    });
  }
  return [...hits.values()].sort((a, b) => b.fused - a.fused || a.block - b.block).slice(0, k);
}
