/** A parent segment as the next build sees it: how many blocks it holds, and how many are still live. */
export interface SegmentUse {
  id: string;
  blocks: number;
  live: number;
}

/** More segments than this and the smallest ones are merged whatever their sizes (load cost per segment). */
export const MAX_SEGMENTS = 12;

/**
 * Which of the parent's segments are rewritten into the build's new segment (together with the
 * `incoming` blocks of changed documents); the others are kept as they are (hard-linked).
 *
 * - A segment with no live block is dropped; one with a third or more of its blocks replaced is
 *   rewritten, so dead blocks never cost more than half again the live ones in memory and load time.
 * - Tail merging, like a binary counter: while the newest kept segment is at most twice what the new
 *   segment would hold, it is merged into it. Segment sizes stay geometric, so a collection of n blocks
 *   has O(log n) segments and a block is rewritten O(log n) times over any sequence of edits, while a
 *   one-file edit to a large collection writes only a small segment.
 */
export function planMerges(segments: readonly SegmentUse[], incoming: number): Set<string> {
  const merged = new Set<string>();
  let acc = incoming;
  for (const s of segments) {
    if (s.live === 0 || s.live * 3 <= s.blocks * 2) {
      merged.add(s.id);
      acc += s.live;
    }
  }
  const kept = segments.filter((s) => !merged.has(s.id));
  while (kept.length > 0 && acc > 0 && kept[kept.length - 1]!.live <= 2 * acc) {
    const s = kept.pop()!;
    merged.add(s.id);
    acc += s.live;
  }
  while (kept.length + (acc > 0 ? 1 : 0) > MAX_SEGMENTS) {
    const s = kept.pop()!;
    merged.add(s.id);
    acc += s.live;
  }
  return merged;
}
