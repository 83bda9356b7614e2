import type { KeywordHits, PostingList, RankedBlock } from './search-sides';

/**
 * The top k of a BM25F query without scoring every block of every term (issue 37: at a million blocks a
 * question's common words — the, of, was, 的 — have half a million postings each, and scoring them all
 * took 50–300 ms). The idea of MaxScore (Turtle & Flood 1995), term at a time:
 *
 * 1. A term adds less than its weight w (= weight · idf · (k1 + 1); x/(k1 + x) < 1) to any block. Terms
 *    are taken by falling w, their postings added into an accumulator, until the weights left add up
 *    to less than the k-th best sum so far: no block they have not reached can enter the top k then,
 *    and the rest (the common words, of small idf) are not walked.
 * 2. The candidates — blocks whose sum plus the weights left can still reach that k-th sum — get their
 *    exact score: every term in the query's order, each found in its postings by binary search, added
 *    as the full scan adds them, so the scores are the full scan's to the bit.
 * 3. The top k of the candidates by (score, lower block), as the full scan ranks them.
 *
 * The accumulator sums in another order than the exact scores, so its bounds are widened by a relative
 * margin far above rounding (1e-9); a block left out scores strictly below the k-th. Any block's exact
 * score is at hand the same way (scoreOf: a hybrid hit the keyword side did not rank).
 */

/** A query term: its weight, and its postings in a part (read on first use), undefined where the part lacks it. */
export interface TopKTerm {
  readonly w: number;
  /** Its postings in all parts (what walking it costs). */
  readonly postings: number;
  list(part: number): PostingList | undefined;
}

/** A part as the search reads it: its blocks' global numbers (null: the identity) and field length norms. */
export interface TopKPart {
  readonly toGlobal: Int32Array | null;
  readonly text: Float64Array;
  readonly head: Float64Array;
  /** The same norms in float32, for the walk's approximate sums (half the memory traffic). */
  readonly text32: Float32Array;
  readonly head32: Float32Array;
}

export interface TopKIndex {
  readonly size: number;
  readonly k1: number;
  readonly parts: readonly TopKPart[];
  /** The part holding a global block, and its number there. */
  partOf(block: number): number;
  localOf(block: number): number;
  /** A zeroed accumulator of `size` and room for the blocks it touches, reused from query to query (left zeroed). */
  scratch(): { acc: Float32Array; touched: Int32Array };
}

/**
 * Relative widening of the bounds: the walk sums in float32 (a million-block accumulator and the norms
 * it reads stay half as large in the caches), within about 1e-6 of the exact sums; this is ten times that.
 */
const MARGIN = 1e-5;
/**
 * What finding a candidate in a term's postings costs against walking one posting (a binary search of
 * ~20 steps, galloping over candidates in order, against one addition): the walk stops only when the candidates' lookups cost less than
 * walking the terms left.
 */
const LOOKUP_COST = 4;

/**
 * x = tf · text + h · head, as the full scan computes it; a zero frequency skips its product (the same
 * bits: adding a zero product changes nothing) and, in the walk, the load of a norm from memory: most
 * postings have no headings frequency, and each norm read is a cache miss at a million blocks.
 */
function fieldSum(tf: number, h: number, textNorm: number, head: Float64Array | Float32Array, local: number): number {
  return h === 0 ? tf * textNorm : tf * textNorm + h * head[local]!;
}

/** Index of `local` in an ascending list, or -1. */
function find(blocks: Uint32Array, local: number): number {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = blocks[mid]!;
    if (v === local) return mid;
    if (v < local) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The k-th largest accumulated sum among the touched blocks (a min-heap of k). */
function kthLargest(acc: Float32Array, touched: Int32Array, n: number, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const v = acc[touched[i]!]!;
    if (size < k) {
      let j = size++;
      while (j > 0 && heap[(j - 1) >> 1]! > v) {
        heap[j] = heap[(j - 1) >> 1]!;
        j = (j - 1) >> 1;
      }
      heap[j] = v;
    } else if (v > heap[0]!) replaceMin(heap, k, v);
  }
  return size < k ? 0 : heap[0]!;
}

/** Puts `v` in place of the smallest of a full min-heap of k values, sifting it down. */
function replaceMin(heap: Float64Array, k: number, v: number): void {
  let j = 0;
  for (;;) {
    const l = 2 * j + 1;
    if (l >= k) break;
    const c = l + 1 < k && heap[l + 1]! < heap[l]! ? l + 1 : l;
    if (heap[c]! >= v) break;
    heap[j] = heap[c]!;
    j = c;
  }
  heap[j] = v;
}

/** The k-th largest of some values (k ≤ their number), by a min-heap of k. */
function kthOf(values: Float64Array, k: number): number {
  const heap = new Float64Array(k);
  heap.set(values.subarray(0, k));
  heap.sort();
  // A sorted array is a valid min-heap.
  for (let i = k; i < values.length; i++) {
    const v = values[i]!;
    if (v > heap[0]!) replaceMin(heap, k, v);
  }
  return heap[0]!;
}

/** The exact score of a block: each term in the query's order, as the full scan adds it. */
function exactScore(index: TopKIndex, terms: readonly TopKTerm[], block: number): number {
  const part = index.partOf(block);
  const local = index.localOf(block);
  const { text, head } = index.parts[part]!;
  let s = 0;
  for (const t of terms) {
    const l = t.list(part);
    if (!l) continue;
    const p = find(l.blocks, local);
    if (p < 0) continue;
    const x = fieldSum(l.tfs[p]!, l.headTfs[p]!, text[local]!, head, local);
    s += (t.w * x) / (index.k1 + x);
  }
  return s;
}

/** First index ≥ `from` whose value is ≥ `local` (exponential, then binary search): candidates come in order. */
function gallop(blocks: Uint32Array, from: number, local: number): number {
  let step = 1;
  let hi = from;
  while (hi < blocks.length && blocks[hi]! < local) {
    from = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, blocks.length);
  while (from < hi) {
    const mid = (from + hi) >>> 1;
    if (blocks[mid]! < local) from = mid + 1;
    else hi = mid;
  }
  return from;
}

/** Adds to each candidate's sum what the terms not walked give it (order of addition does not matter here). */
function addRest(index: TopKIndex, rest: readonly TopKTerm[], candidates: readonly number[], sums: Float64Array): void {
  // Candidates by part, each part's in local order.
  const byPart = new Map<number, number[]>();
  candidates.forEach((b, i) => {
    const part = index.partOf(b);
    let list = byPart.get(part);
    if (!list) byPart.set(part, (list = []));
    list.push(i);
  });
  for (const [part, list] of byPart) {
    const locals = list.map((i) => index.localOf(candidates[i]!));
    const order = list.map((_, j) => j).sort((a, b) => locals[a]! - locals[b]!);
    const { text32: text, head32: head } = index.parts[part]!;
    for (const t of rest) {
      const l = t.list(part);
      if (!l) continue;
      let at = 0;
      for (const j of order) {
        const local = locals[j]!;
        at = gallop(l.blocks, at, local);
        if (at >= l.blocks.length) break;
        if (l.blocks[at] !== local) continue;
        const x = fieldSum(l.tfs[at]!, l.headTfs[at]!, text[local]!, head, local);
        sums[list[j]!]! += (t.w * x) / (index.k1 + x);
      }
    }
  }
}

export function keywordTopK(index: TopKIndex, terms: readonly TopKTerm[], k: number, allowed?: (block: number) => boolean): KeywordHits {
  const exact = new Map<number, number>();
  const scoreOf = (block: number): number | null => {
    if (block < 0 || block >= index.size || (allowed && !allowed(block))) return null;
    let s = exact.get(block);
    if (s === undefined) exact.set(block, (s = exactScore(index, terms, block)));
    return s > 0 ? s : null;
  };
  if (k <= 0 || terms.length === 0) return { ranked: [], scoreOf };
  const { acc, touched } = index.scratch();
  let n = 0;
  const order = terms.map((_, i) => i).sort((a, b) => terms[b]!.w - terms[a]!.w || a - b);
  let remaining = 0;
  for (const t of terms) remaining += t.w;
  let theta = 0;
  /** The largest sum so far: the k-th is at most this, so while the weights left reach it nothing can stop. */
  let top = 0;
  let walked = order.length;
  try {
    for (let o = 0; o < order.length; o++) {
      const t = terms[order[o]!]!;
      if (n >= k && remaining < top * (1 - MARGIN)) {
        // Sums only grow, so an earlier k-th sum is still a lower bound: worked out again only when
        // that one does not decide.
        if (!(remaining < theta * (1 - MARGIN))) theta = kthLargest(acc, touched, n, k);
        if (remaining < theta * (1 - MARGIN)) {
          // No block left unreached can make the top k. Walk this term only if that costs less than
          // looking it up for every block that still can.
          const bar = theta * (1 - MARGIN) - remaining;
          let count = 0;
          for (let i = 0; i < n; i++) if (acc[touched[i]!]! >= bar) count++;
          if (t.postings > count * LOOKUP_COST) {
            walked = o;
            break;
          }
        }
      }
      index.parts.forEach(({ toGlobal, text32: text, head32: head }, part) => {
        const l = t.list(part);
        if (!l) return;
        const { blocks, tfs, headTfs } = l;
        for (let p = 0, end = blocks.length; p < end; p++) {
          const local = blocks[p]!;
          const b = toGlobal ? toGlobal[local]! : local;
          if (b < 0 || (allowed && !allowed(b))) continue;
          const tf = tfs[p]!;
          const h = headTfs[p]!;
          const x = h === 0 ? tf * text[local]! : tf === 0 ? h * head[local]! : tf * text[local]! + h * head[local]!;
          const c = (t.w * x) / (index.k1 + x);
          if (c > 0 && acc[b] === 0) touched[n++] = b;
          const v = (acc[b]! += c);
          if (v > top) top = v;
        }
      });
      // What the terms not yet taken could still add (exactly 0 once all are taken).
      remaining = 0;
      for (let r = o + 1; r < order.length; r++) remaining += terms[order[r]!]!.w;
    }
    if (n >= k) theta = kthLargest(acc, touched, n, k);
    // Candidates: blocks that may still reach the k-th sum, and their sums with the terms not walked,
    // found by walking each term's postings alongside the candidates in block order (galloping).
    const bar = theta * (1 - MARGIN) - remaining;
    const candidates: number[] = [];
    for (let i = 0; i < n; i++) if (n < k || acc[touched[i]!]! >= bar) candidates.push(touched[i]!);
    const sums = Float64Array.from(candidates, (b) => acc[b]!);
    if (walked < order.length) addRest(index, order.slice(walked).map((i) => terms[i]!), candidates, sums);
    const cut = candidates.length > k ? kthOf(sums, k) * (1 - MARGIN) : 0;
    const ranked: RankedBlock[] = [];
    candidates.forEach((b, i) => {
      if (sums[i]! < cut) return;
      const s = exactScore(index, terms, b);
      exact.set(b, s);
      if (s > 0) ranked.push({ block: b, score: s });
    });
    ranked.sort((a, b) => b.score - a.score || a.block - b.block);
    return { ranked: ranked.slice(0, k), scoreOf };
  } finally {
    for (let i = 0; i < n; i++) acc[touched[i]!] = 0;
  }
}
