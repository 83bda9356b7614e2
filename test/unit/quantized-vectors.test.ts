import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Int8Rows, allocateInt8 } from '../../src/index/search/dot-kernel';
import { quantizeRows } from '../../src/index/search/quantize';
import { MemoryRows, QuantizedVectors, RESCORE_MIN, type VectorShard } from '../../src/index/search/quantized-vectors';
import { VectorIndex, normalizeRows } from '../../src/index/search/vector-index';
import { hashEmbedding } from '../fakes/hash-embedding';
import { fixture } from '../helpers';

const DIMS = 256;

/** Sentences of the Markdown and text fixtures (Chinese and English notes): real words for hash n-gram vectors. */
function sentences(): string[] {
  const texts = ['markdown', 'notes'].flatMap((d) => fs.readdirSync(fixture(d)).filter((f) => f.endsWith('.md')).map((f) => fs.readFileSync(path.join(fixture(d), f), 'utf8')));
  return [...new Set(texts.join('\n').split(/(?<=[.!?。！？])\s*|\n+/u).map((s) => s.trim()).filter((s) => s.length > 12))];
}

/** `n` rows of hash n-gram vectors of sentence pairs, normalised, and the texts they came from. */
function structured(n: number): { texts: string[]; matrix: Float32Array } {
  const s = sentences();
  const texts = Array.from({ length: n }, (_, i) => `${s[i % s.length]} ${s[(i * 7 + 3) % s.length]}`);
  const matrix = new Float32Array(n * DIMS);
  texts.forEach((t, i) => matrix.set(hashEmbedding(t, DIMS), i * DIMS));
  normalizeRows(matrix, DIMS);
  return { texts, matrix };
}

/** The rows as int8 shards of at most `per` rows, exact rows in memory. */
function shardsOf(matrix: Float32Array, per: number, toGlobal?: (local: number, shard: number) => number): VectorShard[] {
  const n = matrix.length / DIMS;
  const out: VectorShard[] = [];
  for (let first = 0, k = 0; first < n; first += per, k++) {
    const rows = Math.min(per, n - first);
    const part = matrix.subarray(first * DIMS, (first + rows) * DIMS);
    const scorer = allocateInt8(rows, DIMS);
    quantizeRows(part, DIMS, scorer.codes, scorer.scales);
    const map = toGlobal ? Int32Array.from({ length: rows }, (_, r) => toGlobal(r, k)) : null;
    out.push({ scorer, toGlobal: map, base: first, exact: new MemoryRows(part, DIMS) });
  }
  return out;
}

describe('int8 vector search with exact rescoring', () => {
  const { texts, matrix } = structured(3000);
  const exact = new VectorIndex(matrix, DIMS);
  const queries = texts.filter((_, i) => i % 97 === 5).map((t) => hashEmbedding(t.split(' ').slice(0, 6).join(' '), DIMS));

  it('finds the exact float32 top 10 (and top 50) on hash n-gram vectors, with the exact scores to the bit', () => {
    const q8 = new QuantizedVectors(shardsOf(matrix, 3000), DIMS, 3000);
    for (const q of queries) {
      for (const k of [10, 50]) {
        const want = exact.search(q, k);
        const got = q8.search(q, k);
        assert.deepEqual(got, want);
      }
    }
  });

  it('answers the same split over several shards, in the kernel or in JavaScript, and the same every time', () => {
    const one = new QuantizedVectors(shardsOf(matrix, 3000), DIMS, 3000);
    const many = new QuantizedVectors(shardsOf(matrix, 700), DIMS, 3000);
    const js = shardsOf(matrix, 3000).map((s) => {
      const rows = new Int8Rows(s.scorer.rows, DIMS);
      rows.codes.set(s.scorer.codes);
      rows.scales.set(s.scorer.scales);
      return { ...s, scorer: rows };
    });
    const plain = new QuantizedVectors(js, DIMS, 3000);
    for (const q of queries) {
      const a = one.search(q, 10);
      assert.deepEqual(many.search(q, 10), a);
      assert.deepEqual(plain.search(q, 10), a);
      assert.deepEqual(one.search(q, 10), a);
    }
  });

  it('gives ties to the lower block: identical rows come back in block order', () => {
    const row = hashEmbedding('the same paragraph about photosynthesis and light', DIMS);
    const m = new Float32Array(600 * DIMS);
    for (let i = 0; i < 600; i++) m.set(i % 3 === 0 ? row : hashEmbedding(`other text ${i}`, DIMS), i * DIMS);
    normalizeRows(m, DIMS);
    const hits = new QuantizedVectors(shardsOf(m, 250), DIMS, 600).search(row, 30);
    assert.deepEqual(
      hits.map((h) => h.block),
      Array.from({ length: 30 }, (_, i) => i * 3),
    );
  });

  it('skips rows of replaced documents (-1) and rows not allowed, and maps the rest to their global blocks', () => {
    // Shard rows interleave with another segment's: local row r of shard k is global 2r + k, every fifth dead.
    const global = (r: number, k: number) => (r % 5 === 4 ? -1 : 2 * r + k);
    const half = matrix.subarray(0, 1000 * DIMS);
    const shards = [...shardsOf(half, 1000, (r) => global(r, 0)), ...shardsOf(half, 1000, (r) => global(r, 1)).map((s) => ({ ...s }))];
    const q8 = new QuantizedVectors(shards, DIMS, 2000);
    const allowed = (b: number) => b % 3 !== 0;
    // The same rows as one exact index in global order (dead rows left out).
    const byGlobal = new Map<number, number>();
    for (let r = 0; r < 1000; r++) for (const k of [0, 1]) if (global(r, k) >= 0) byGlobal.set(global(r, k), r);
    for (const q of queries.slice(0, 10)) {
      const scores = exact.score(q);
      const want = [...byGlobal]
        .filter(([g]) => allowed(g))
        .map(([g, r]) => ({ block: g, score: scores[r]! }))
        .sort((a, b) => b.score - a.score || a.block - b.block)
        .slice(0, 10);
      assert.deepEqual(q8.search(q, 10, allowed), want);
    }
  });

  it('rescores at least RESCORE_MIN candidates, so a small k still reaches past near-ties', () => {
    assert.ok(RESCORE_MIN >= 4 * 50, 'the fusion depth (50) times four');
  });
});
