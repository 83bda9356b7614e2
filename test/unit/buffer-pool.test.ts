import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferPool } from '../../src/index/search/buffer-pool';

describe('buffers given back to be used again', () => {
  it('gives the smallest spare buffer that fits, else a fresh one with a quarter more room', () => {
    const pool = new BufferPool();
    const small = new ArrayBuffer(1000);
    const mid = new ArrayBuffer(5000);
    const large = new ArrayBuffer(20000);
    pool.give([large, small, mid]);
    assert.equal(pool.take(900), small);
    assert.equal(pool.take(900), mid, 'each spare buffer is given once');
    assert.equal(pool.take(30000).byteLength, Math.ceil((30000 * 1.25) / 4096) * 4096, 'none fits: a fresh one, rounded to pages');
    assert.equal(pool.take(20000), large);
    assert.equal(pool.size, 0);
    assert.equal(pool.take(0).byteLength, 0);
  });

  it('keeps at most its limit, the oldest going first, and never an empty buffer', () => {
    const pool = new BufferPool(2);
    const [a, b, c] = [new ArrayBuffer(100), new ArrayBuffer(200), new ArrayBuffer(300)];
    pool.give([a, new ArrayBuffer(0), b]);
    pool.give([c]);
    assert.equal(pool.size, 2);
    assert.equal(pool.take(50), b, 'the oldest (a) went');
    assert.equal(pool.take(50), c);
  });
});
