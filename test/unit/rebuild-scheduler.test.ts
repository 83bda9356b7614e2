import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RebuildScheduler, type Timers } from '../../src/vscode/rebuild-scheduler';

/** Timers on a clock the test moves by hand. */
function fakeTimers() {
  let now = 0;
  let next = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    set: (fn, ms) => (pending.set(++next, { at: now + ms, fn }), next),
    clear: (h) => void pending.delete(h as number),
  };
  const advance = async (ms: number) => {
    now += ms;
    for (const [id, t] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at > now) continue;
      pending.delete(id);
      t.fn();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { timers, advance };
}

describe('file changes to rebuilds', () => {
  it('a burst of 500 changes causes one rebuild, after the quiet period', async () => {
    const clock = fakeTimers();
    let builds = 0;
    const s = new RebuildScheduler(async () => void builds++, 2000, clock.timers);
    for (let i = 0; i < 500; i++) {
      s.changed();
      await clock.advance(3);
    }
    assert.equal(builds, 0, 'nothing while changes keep coming');
    await clock.advance(2000);
    assert.equal(builds, 1);
    await clock.advance(10_000);
    assert.equal(builds, 1);
  });

  it('changes during a rebuild cause exactly one more, after it; none runs twice at once', async () => {
    const clock = fakeTimers();
    let running = 0;
    let most = 0;
    let builds = 0;
    let finish: () => void = () => {};
    const s = new RebuildScheduler(
      () =>
        new Promise<void>((resolve) => {
          builds++;
          running++;
          most = Math.max(most, running);
          finish = () => {
            running--;
            resolve();
          };
        }),
      100,
      clock.timers,
    );
    s.changed();
    await clock.advance(100);
    assert.equal(builds, 1);
    for (let i = 0; i < 50; i++) s.changed();
    finish();
    await new Promise((r) => setImmediate(r));
    await clock.advance(100);
    assert.equal(builds, 2);
    finish();
    await new Promise((r) => setImmediate(r));
    await clock.advance(1000);
    assert.deepEqual([builds, most], [2, 1]);
    s.dispose();
    s.changed();
    await clock.advance(1000);
    assert.equal(builds, 2, 'nothing after dispose');
  });
});
