import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SEGMENTS, planMerges, type SegmentUse } from '../../src/index/store/segment-plan';

/** Applies a plan the way a build does: merged segments' live blocks join the new segment. */
function apply(segments: SegmentUse[], incoming: number, n: number): { segments: SegmentUse[]; rewritten: number } {
  const merged = planMerges(segments, incoming);
  let size = incoming;
  for (const s of segments) if (merged.has(s.id)) size += s.live;
  const kept = segments.filter((s) => !merged.has(s.id));
  return { segments: size > 0 ? [...kept, { id: `g${n}`, blocks: size, live: size }] : kept, rewritten: size };
}

describe('segment merge plan', () => {
  it('keeps a large segment as it is when one small file changes', () => {
    assert.deepEqual([...planMerges([{ id: 'ga', blocks: 10_000, live: 9_990 }], 11)], []);
  });

  it('keeps O(log n) segments and rewrites each block O(log n) times over a thousand one-file edits', () => {
    let segments: SegmentUse[] = [{ id: 'g0', blocks: 10_000, live: 10_000 }];
    let rewritten = 0;
    let most = 0;
    for (let n = 1; n <= 1000; n++) {
      // Each edit replaces a 10-block document of the newest segment that has one, with an 11-block one.
      const victim = [...segments].reverse().find((s) => s.live >= 10)!;
      segments = segments.map((s) => (s === victim ? { ...s, live: s.live - 10 } : s));
      const r = apply(segments, 11, n);
      segments = r.segments;
      rewritten += r.rewritten;
      most = Math.max(most, segments.length);
    }
    assert.ok(most <= 8, `at most ${most} segments`);
    // 1,000 edits of 11 blocks: a small factor of rewriting (measured 24,101 blocks), where rewriting
    // the collection each time would be ten million.
    assert.ok(rewritten < 1000 * 11 * 4, `${rewritten} blocks rewritten`);
    assert.ok(segments.reduce((n, s) => n + s.live, 0) === 10_000 + 1000, 'no live block lost');
  });

  it('rewrites a segment once a third of it is replaced, and drops one with nothing live', () => {
    const plan = planMerges(
      [
        { id: 'gbig', blocks: 9_000, live: 6_000 },
        { id: 'gmid', blocks: 900, live: 899 },
        { id: 'gdead', blocks: 50, live: 0 },
      ],
      5,
    );
    assert.deepEqual([...plan].sort(), ['gbig', 'gdead', 'gmid']);
    assert.deepEqual([...planMerges([{ id: 'ga', blocks: 9_000, live: 6_001 }, { id: 'gb', blocks: 100, live: 100 }], 0)], []);
  });

  it(`never leaves more than ${MAX_SEGMENTS} segments`, () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ id: `g${i}`, blocks: 2 ** (30 - i), live: 2 ** (30 - i) }));
    const merged = planMerges(many, 1);
    assert.ok(many.length - merged.size + 1 <= MAX_SEGMENTS);
  });
});
