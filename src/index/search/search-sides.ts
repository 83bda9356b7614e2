/**
 * The two sides of the hybrid search as hybrid-search.ts sees them: a keyword side and a vector side,
 * each ranking blocks (0..n-1 in global block order) for one query. DocQA's Bm25Index and VectorIndex
 * implement them; so does the bench's Orama adapter (bench/orama-sides.ts), so both are measured
 * through the same calls.
 */

/** A block and its score on one side, as ranked there. */
export interface RankedBlock {
  block: number;
  score: number;
}

/** One keyword query's answer: the top blocks, and the score of any block (for a hit the other side found). */
export interface KeywordHits {
  /** Blocks with a score > 0, best first; ties to the lower block. */
  ranked: RankedBlock[];
  /** The block's keyword score, or null where it does not match (or, for a side that scores only its top, is not among it). */
  scoreOf(block: number): number | null;
}

export interface KeywordSide {
  /** The top `k` blocks for the query; `allowed` limits the blocks considered. */
  search(query: string, k: number, allowed?: (block: number) => boolean): KeywordHits;
}

export interface VectorSide {
  /** The `k` blocks most similar to the vector (cosine), best first, ties to the lower block; `allowed` limits the blocks. */
  search(vector: Float32Array, k: number, allowed?: (block: number) => boolean): RankedBlock[];
}

/** One term's postings in one part: block numbers (ascending) and the two field frequencies. */
export interface PostingList {
  blocks: Uint32Array;
  tfs: Uint16Array;
  headTfs: Uint16Array;
}
