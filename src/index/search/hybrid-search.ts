import type { KeywordSide, VectorSide } from './search-sides';

export { topK } from './top-k';

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
 * The fixed hybrid ranking of search_blocks: the top FUSION_DEPTH of BM25 (score > 0) and of cosine are
 * fused by RRF, score = Σ 1/(RRF_K + rank); ties break by global block order. Without a query vector
 * (keyword-only mode) the BM25 ranking is used as is.
 */
export function hybridSearch(keyword: KeywordSide, vectors: VectorSide | null, query: string, queryVector: Float32Array | null, k: number, allowed?: (block: number) => boolean): HybridHit[] {
  const kw = keyword.search(query, FUSION_DEPTH, allowed);
  const hits = new Map<number, HybridHit>();
  kw.ranked.forEach(({ block, score }, r) => hits.set(block, { block, fused: 1 / (RRF_K + r + 1), bm25: score, cosine: null, bm25_rank: r + 1, vector_rank: null }));
  if (vectors && queryVector) {
    vectors.search(queryVector, FUSION_DEPTH, allowed).forEach(({ block, score }, r) => {
      const h = hits.get(block) ?? { block, fused: 0, bm25: kw.scoreOf(block), cosine: null, bm25_rank: null, vector_rank: null };
      h.fused += 1 / (RRF_K + r + 1);
      h.cosine = score;
      h.vector_rank = r + 1;
      hits.set(block, h);
    });
  }
  return [...hits.values()].sort((a, b) => b.fused - a.fused || a.block - b.block).slice(0, k);
}
