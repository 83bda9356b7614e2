import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withinDeadline } from '../../src/common/within-deadline';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('withinDeadline', () => {
  it('gives the work when it settles first, and clears its timer then', async () => {
    const before = timers();
    assert.equal(await withinDeadline(Promise.resolve(42), 60_000), 42);
    assert.equal(timers(), before);
  });

  it('gives timeout when the work has not settled; the work still rejecting later is no unhandled rejection', async () => {
    let fail!: (e: Error) => void;
    const work = new Promise<number>((_, reject) => (fail = reject));
    assert.equal(await withinDeadline(work, 5), 'timeout');
    fail(new Error('late'));
  });

  it('passes a rejection through and clears its timer', async () => {
    const before = timers();
    await assert.rejects(withinDeadline(Promise.reject(new Error('no disk')), 60_000), /no disk/);
    assert.equal(timers(), before);
  });
});
