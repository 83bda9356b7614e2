import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Int8Kernel, Int8Rows, type Int8Scorer, maxShardRows } from '../../src/index/search/dot-kernel';
import { CODE_MAX, queryCodeMax, quantizeQuery, quantizeRows } from '../../src/index/search/quantize';
import { normalizeRows } from '../../src/index/search/vector-index';

function random(seed: number): () => number {
  return () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
}

/** The same codes and scales in the WebAssembly kernel and in the JavaScript scorer. */
function pair(rows: number, dims: number, fill: (i: number) => number, scale: (r: number) => number): [Int8Scorer, Int8Scorer] {
  const wasm = Int8Kernel.allocate(rows, dims);
  assert.ok(wasm, 'a small kernel memory can be had');
  const js = new Int8Rows(rows, dims);
  const codes = Int8Array.from({ length: rows * dims }, (_, i) => fill(i));
  const scales = Float32Array.from({ length: rows }, (_, r) => scale(r));
  for (const s of [wasm, js]) {
    s.codes.set(codes);
    s.scales.set(scales);
  }
  return [wasm, js];
}

const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('int8 dot-product kernel (the vector side scans these)', () => {
  it('gives the same bits as the JavaScript loop for every dimension count around the 16- and 32-byte steps', () => {
    for (const dims of [1, 2, 15, 16, 17, 31, 32, 33, 48, 64, 1024, 1027]) {
      const r = random(dims);
      const [wasm, js] = pair(37, dims, () => Math.round(r() * 2 * CODE_MAX), () => Math.abs(r()) / 100);
      const q = Int16Array.from({ length: dims }, () => Math.round(r() * 2 * queryCodeMax(dims)));
      wasm.score(q, 0, 37);
      js.score(q, 0, 37);
      assert.ok(wasm.scores.some((s) => s !== 0), `dims ${dims}: scores computed`);
      assert.ok(bits(wasm.scores).equals(bits(js.scores)), `dims ${dims}`);
    }
  });

  it('sums in int32 without overflow at the extremes the query bound allows (every code ±127, the query at its largest)', () => {
    for (const dims of [1024, 4096]) {
      const top = queryCodeMax(dims);
      assert.ok(CODE_MAX * top * dims <= 0x7fffffff);
      const [wasm, js] = pair(2, dims, (i) => (i < dims ? CODE_MAX : -CODE_MAX), () => 1);
      const q = new Int16Array(dims).fill(top);
      wasm.score(q, 0, 2);
      js.score(q, 0, 2);
      assert.deepEqual([...wasm.scores], [Math.fround(CODE_MAX * top * dims), Math.fround(-CODE_MAX * top * dims)]);
      assert.deepEqual([...js.scores], [...wasm.scores]);
    }
  });

  it('scores only the run asked for and leaves the other rows as they were', () => {
    const [wasm] = pair(20, 33, (i) => (i % 7) - 3, () => 0.5);
    const q = Int16Array.from({ length: 33 }, (_, j) => j);
    wasm.scores.fill(-1);
    wasm.score(q, 5, 3);
    for (let r = 0; r < 20; r++) assert.equal(wasm.scores[r] === -1, r < 5 || r >= 8, `row ${r}`);
  });

  it('a shard stays below 2 GiB of kernel memory', () => {
    assert.ok(maxShardRows(1024) * (1024 + 8) < 2 ** 31);
    assert.ok(maxShardRows(1024) > 2_000_000);
  });
});

describe('per-row int8 quantisation', () => {
  it('keeps every value within half a step of its row, the largest at ±127', () => {
    const dims = 64;
    const rows = Float32Array.from({ length: 10 * dims }, random(3));
    normalizeRows(rows, dims);
    const codes = new Int8Array(rows.length);
    const scales = new Float32Array(10);
    quantizeRows(rows, dims, codes, scales);
    for (let r = 0; r < 10; r++) {
      let max = 0;
      for (let j = 0; j < dims; j++) {
        const x = rows[r * dims + j]!;
        assert.ok(Math.abs(codes[r * dims + j]! * scales[r]! - x) <= scales[r]! * 0.5 + 1e-7, `row ${r} dim ${j}`);
        max = Math.max(max, Math.abs(codes[r * dims + j]!));
      }
      assert.equal(max, CODE_MAX);
    }
  });

  it('a zero row and a zero query give zero codes and no NaN', () => {
    const codes = new Int8Array(4).fill(5);
    const scales = new Float32Array(1);
    quantizeRows(new Float32Array(4), 4, codes, scales);
    assert.deepEqual([...codes, ...scales], [0, 0, 0, 0, 0]);
    const q = new Int16Array(4);
    assert.equal(quantizeQuery(new Float32Array(4), q), 0);
    assert.deepEqual([...q], [0, 0, 0, 0]);
  });

  it('the query codes reach the bound and keep the query within half a step', () => {
    const dims = 1024;
    const v = Float32Array.from({ length: dims }, random(9));
    normalizeRows(v, dims);
    const q = new Int16Array(dims);
    const scale = quantizeQuery(v, q);
    assert.equal(Math.max(...q.map(Math.abs)), queryCodeMax(dims));
    for (let j = 0; j < dims; j++) assert.ok(Math.abs(q[j]! * scale - v[j]!) <= scale * 0.5 + 1e-9);
  });
});
