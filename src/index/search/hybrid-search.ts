import type { BlockPriors } from './block-priors';
import type { KeywordSide, VectorSide } from './search-sides';

export { topK } from './top-k';

/** Reciprocal-rank fusion constant (Cormack et al. 2009): scale-free, so BM25 and cosine need no calibration. */
export const RRF_K = 60;
/** How deep each side's ranking goes into the fusion. */
export const FUSION_DEPTH = 50;
/**
 * A link-list block's score is multiplied by this (link-list.ts): below the content that matches as well,
 * still found when it alone matches (`RFC 793` in a reference list). On the real notes (bench/real-notes,
 * 84 questions, 420 top-5 places) link lists took 64 places at 1, 12 at 0.5, 5 at 0.3, 1 at 0.1;
 * section recall@1 was 0.845 at 1 and 0.857 at every weight up to 0.5 (@5 0.964 throughout).
 */
export const LINK_LIST_WEIGHT = 0.3;
/**
 * Each block of a section already in the results multiplies the next one's score by this, so that a
 * section's neighbours give way to the other sections that match. Repeated sections took 106 of the 420
 * places at 1, 60 at 0.75, 28 at 0.5, 5 at 0.25, recall unchanged; 0.5 still shows a second block of a
 * section that clearly leads.
 */
export const SECTION_REPEAT_WEIGHT = 0.5;

export interface HybridHit {
  /** Global block index (blocks are ordered by doc_id, then block_index). */
  block: number;
  fused: number;
  bm25: number | null;
  cosine: number | null;
  bm25_rank: number | null;
  vector_rank: number | null;
  /** The score the block was ranked by: BM25 alone (keyword-only) or fused, times its link-list and repeat weights. */
  rank_score: number;
}

/**
 * The fixed hybrid ranking of search_blocks: the top FUSION_DEPTH of BM25 (score > 0) and of cosine are
 * fused by RRF, score = Σ 1/(RRF_K + rank); without a query vector (keyword-only mode) the BM25 score
 * itself. With the collection's priors, a link list counts LINK_LIST_WEIGHT of its score, and the top k
 * is taken one block at a time, each block of a section already taken weighing the next one of that
 * section down by SECTION_REPEAT_WEIGHT: sections, not neighbours. Ties break by global block order.
 */
export function hybridSearch(keyword: KeywordSide, vectors: VectorSide | null, query: string, queryVector: Float32Array | null, k: number, allowed?: (block: number) => boolean, priors?: BlockPriors): HybridHit[] {
  const kw = keyword.search(query, FUSION_DEPTH, allowed);
  const hits = new Map<number, HybridHit>();
  kw.ranked.forEach(({ block, score }, r) => hits.set(block, { block, fused: 1 / (RRF_K + r + 1), bm25: score, cosine: null, bm25_rank: r + 1, vector_rank: null, rank_score: 0 }));
  const fusedMode = Boolean(vectors && queryVector);
  if (vectors && queryVector) {
    vectors.search(queryVector, FUSION_DEPTH, allowed).forEach(({ block, score }, r) => {
      const h = hits.get(block) ?? { block, fused: 0, bm25: kw.scoreOf(block), cosine: null, bm25_rank: null, vector_rank: null, rank_score: 0 };
      h.fused += 1 / (RRF_K + r + 1);
      h.cosine = score;
      h.vector_rank = r + 1;
      hits.set(block, h);
    });
  }
  const candidates = [...hits.values()];
  for (const h of candidates) h.rank_score = (fusedMode ? h.fused : h.bm25!) * (priors?.linkList(h.block) ? LINK_LIST_WEIGHT : 1);
  if (!priors) return candidates.sort(byScore).slice(0, k);
  return diverse(candidates, priors, k);
}

const byScore = (a: HybridHit, b: HybridHit) => b.rank_score - a.rank_score || a.block - b.block;

/** The top k, one at a time: a block's score is weighed down by SECTION_REPEAT_WEIGHT per block of its section already taken. */
function diverse(candidates: HybridHit[], priors: BlockPriors, k: number): HybridHit[] {
  const taken = new Map<string, number>();
  const out: HybridHit[] = [];
  const left = candidates.sort(byScore);
  const sections = new Map<number, string>(left.map((h) => [h.block, priors.section(h.block)]));
  while (out.length < k && left.length) {
    let best = -1;
    let bestScore = -Infinity;
    left.forEach((h, i) => {
      const s = h.rank_score * SECTION_REPEAT_WEIGHT ** (taken.get(sections.get(h.block)!) ?? 0);
      // Sorted by score then block: the first of equals is the lower block.
      if (s > bestScore) {
        best = i;
        bestScore = s;
      }
    });
    const [h] = left.splice(best, 1);
    h!.rank_score = bestScore;
    const section = sections.get(h!.block)!;
    taken.set(section, (taken.get(section) ?? 0) + 1);
    out.push(h!);
  }
  return out;
}
