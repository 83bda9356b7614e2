import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bm25Index } from '../../src/index/search/bm25-index';
import { buildBm25 } from '../../src/index/search/bm25-build';
import { hybridSearch } from '../../src/index/search/hybrid-search';
import type { KeywordSide, VectorSide } from '../../src/index/search/search-sides';
import { VectorIndex, normalizeRows } from '../../src/index/search/vector-index';

const texts = ['the cat sat', 'a dog ran', 'the cat ran', 'birds fly', 'cat cat cat'];
const rows = [
  [1, 0],
  [0, 1],
  [1, 1],
  [0, 1],
  [-1, 0],
];

describe('search sides', () => {
  const keyword = new Bm25Index(buildBm25(texts));
  const matrix = Float32Array.from(rows.flat());
  normalizeRows(matrix, 2);
  const vectors = new VectorIndex(matrix, 2);

  it('rank the keyword side by score with ties to the lower block, and score any block', () => {
    const hits = keyword.search('ran', 5);
    assert.deepEqual(hits.ranked.map((h) => h.block), [1, 2], 'equal lengths, equal scores: lower block first');
    assert.equal(hits.ranked[0]!.score, hits.ranked[1]!.score);
    assert.equal(hits.scoreOf(3), null, 'no match: null, not 0');
    assert.equal(keyword.search('cat', 1).ranked.length, 1);
    assert.deepEqual(keyword.search('cat', 5, (b) => b !== 4).ranked.map((h) => h.block), [0, 2], 'allowed limits the blocks');
  });

  it('rank the vector side by cosine with ties to the lower row, the rows not allowed left out', () => {
    assert.deepEqual(vectors.search(Float32Array.of(0, 3), 2).map((h) => h.block), [1, 3]);
    assert.deepEqual(vectors.search(Float32Array.of(0, 3), 5, (b) => b !== 1).map((h) => h.block), [3, 2, 0, 4]);
  });

  it('fuse any implementation of the two sides the same way', () => {
    // The same rankings handed over by plain objects: hybridSearch sees only the interface.
    const plainKeyword: KeywordSide = { search: (q, k, allowed) => keyword.search(q, k, allowed) };
    const plainVectors: VectorSide = { search: (v, k, allowed) => vectors.search(v, k, allowed) };
    const q = Float32Array.of(1, 0.2);
    assert.deepEqual(hybridSearch(plainKeyword, plainVectors, 'cat ran', q, 5), hybridSearch(keyword, vectors, 'cat ran', q, 5));
    const hit = hybridSearch(keyword, vectors, 'dog', q, 5).find((h) => h.block === 0)!;
    assert.equal(hit.bm25, null, 'found by the vector side only, no keyword match');
    assert.equal(hit.vector_rank, 1);
  });
});
