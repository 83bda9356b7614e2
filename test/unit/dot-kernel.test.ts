import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assembleDotKernel } from '../../scripts/build-dot-kernel';
import { DOT_KERNEL_BASE64, DotKernel } from '../../src/index/search/dot-kernel';
import { VectorIndex, normalizeRows } from '../../src/index/search/vector-index';

function random(seed: number): () => number {
  return () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
}

/** The same rows in the kernel's memory and in an ordinary array (scored by the JavaScript loop). */
function twoIndexes(rows: number, dims: number, seed: number): { simd: VectorIndex; plain: VectorIndex } {
  const r = random(seed);
  const simd = VectorIndex.allocate(rows, dims);
  for (let i = 0; i < simd.matrix.length; i++) simd.matrix[i] = r();
  normalizeRows(simd.matrix, dims);
  return { simd, plain: new VectorIndex(Float32Array.from(simd.matrix), dims) };
}

const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('SIMD dot-product kernel', () => {
  it('is the assembly of its source (dot-kernel.wat); run `npm run build:kernel` after editing it', async () => {
    assert.equal(await assembleDotKernel(), DOT_KERNEL_BASE64);
  });

  it('gives bit-identical scores to the JavaScript loop, for every dimension count modulo four', () => {
    for (const dims of [1, 2, 3, 4, 5, 7, 8, 64, 1024, 1027]) {
      const { simd, plain } = twoIndexes(203, dims, dims);
      const q = Float32Array.from({ length: dims }, random(dims + 1));
      const got = simd.score(q);
      assert.ok(got.some((s) => s !== 0), `dims ${dims}: scores computed`);
      assert.ok(bits(got).equals(bits(plain.score(q))), `dims ${dims}`);
    }
  });

  it('computes only allowed rows, in runs that may start or end anywhere, and leaves the rest at -Infinity', () => {
    const { simd, plain } = twoIndexes(100, 1027, 9);
    const q = Float32Array.from({ length: 1027 }, random(10));
    const filters: Array<(row: number) => boolean> = [(r) => r % 3 !== 0, (r) => r >= 40 && r < 41, (r) => r === 0 || r === 99, (r) => r > 50, () => false];
    for (const allowed of filters) {
      const got = simd.score(q, allowed);
      assert.ok(bits(got).equals(bits(plain.score(q, allowed))));
      for (let r = 0; r < 100; r++) assert.equal(got[r] === -Infinity, !allowed(r), `row ${r}`);
    }
  });

  it('hands back its own copy of the scores: a later query does not change an earlier result', () => {
    const { simd } = twoIndexes(50, 16, 3);
    const first = simd.score(Float32Array.from({ length: 16 }, random(4)));
    const kept = Float64Array.from(first);
    simd.score(Float32Array.from({ length: 16 }, random(5)));
    assert.deepEqual(first, kept);
  });

  it('declines a matrix larger than a WebAssembly memory (the index then keeps an ordinary array)', () => {
    assert.equal(DotKernel.allocate(1 << 20, 1024), null);
    assert.ok(DotKernel.allocate(0, 1024), 'an empty collection still gets a kernel');
  });
});
