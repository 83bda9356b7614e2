import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toVector } from '../../src/index/embed/embedding-client';

describe('an embedding answer read in one pass', () => {
  it('copies the numbers into float32 and says whether every one is finite there', () => {
    const ok = toVector([0.5, -1, 3]);
    assert.deepEqual(ok && Array.from(ok.vector), [0.5, -1, 3]);
    assert.equal(ok?.finite, true);
    // Finite as a double, not as a float32: the row would poison every dot product.
    assert.equal(toVector([0.1, 1e39])?.finite, false);
  });

  it('refuses anything that is not a number (a string, null, a nested array)', () => {
    for (const bad of [[0.1, '0.2'], [null], [[0.1]], [0.1, undefined]]) assert.equal(toVector(bad), null, JSON.stringify(bad));
    assert.deepEqual(toVector([])?.vector.length, 0);
  });
});
