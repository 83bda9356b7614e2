import type { KeywordHits, PostingList, RankedBlock } from './search-sides';
import { gather, kthLargest } from './sum-heap';

/**
 * The top k of a BM25F query without scoring every block of every term (issue 37: at a million blocks a
 * question's common words — the, of, was, 的 — have half a million postings each, and scoring them all
 * took 50–300 ms). The idea of MaxScore (Turtle & Flood 1995), term at a time:
 *
 * 1. A term adds less than its weight w (= weight · idf · (k1 + 1); x/(k1 + x) < 1) to any block. Terms
 *    are taken by falling w, their postings added into an accumulator, until the weights left add up
 *    to less than the k-th best sum so far: no block they have not reached can enter the top k then,
 *    and the rest (the common words, of small idf) are not walked.
 * 2. The candidates — blocks whose sum plus the weights left can still reach that k-th sum — get the
 *    terms not walked added (looked up in those terms' postings), one term at a time, by falling w,
 *    the candidates that can no longer reach the k-th sum dropped after each; and those still at the
 *    k-th sum their exact score: every term in the query's order, each found in its postings by binary
 *    search, added as the full scan adds them, so the scores are the full scan's to the bit.
 * 3. The top k of the candidates by (score, lower block), as the full scan ranks them.
 *
 * The accumulator sums in float32 and in another order than the exact scores, so its bounds are widened
 * by a relative margin well above that rounding (marginFor); a block left out scores strictly below the
 * k-th. Any block's exact score is at hand the same way (scoreOf: a hybrid hit the keyword side did not
 * rank). Measured at a million blocks (bench `scale`, 390 questions): p95 17.1 ms (docs/benchmarks.md:
 * 27.5–30.5 ms when this machine runs at half speed).
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
  /** The same numbering as runs (mappingRuns), when it has few: the walk then reads no toGlobal per posting. */
  readonly runs: MappingRuns | null;
  readonly text: Float64Array;
  readonly head: Float64Array;
  /** The same norms in float32, for the walk's approximate sums (half the memory traffic). */
  readonly text32: Float32Array;
  readonly head32: Float32Array;
}

/**
 * A part's numbering as runs of consecutive blocks: local blocks from starts[r] (up to the next start)
 * are global block local + deltas[r], or dead (DEAD). A snapshot's segment holds whole documents, and
 * the live ones keep their order, so a big segment beside one new book is two or three runs.
 */
export interface MappingRuns {
  readonly starts: Int32Array;
  readonly deltas: Int32Array;
}
/** The delta of a run of blocks no longer in the snapshot. */
const DEAD = -0x80000000;

/** `toGlobal` as runs, or null when it has more than one run per 64 blocks (the lookup per posting is as good then). */
export function mappingRuns(toGlobal: Int32Array): MappingRuns | null {
  const starts: number[] = [];
  const deltas: number[] = [];
  const deltaAt = (l: number) => (toGlobal[l]! < 0 ? DEAD : toGlobal[l]! - l);
  for (let l = 0; l < toGlobal.length; l++) {
    const d = deltaAt(l);
    if (l > 0 && d === deltas[deltas.length - 1]) continue;
    starts.push(l);
    deltas.push(d);
    if (starts.length > 16 + (toGlobal.length >> 6)) return null;
  }
  return { starts: Int32Array.from(starts), deltas: Int32Array.from(deltas) };
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
 * it reads stay half as large in the caches); each term adds at most two roundings of 2^-24 of a sum
 * (its norm read as float32, its addition), so a sum of m terms is within m · 1.2e-7 of the exact one.
 * The margin is ten times that, and never below 1e-5.
 */
const MARGIN = 1e-5;
const marginFor = (terms: number) => Math.max(MARGIN, terms * 1.2e-6);
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

/**
 * Adds into the accumulator what the terms not walked give each candidate (the walk's float32 sums, as
 * the walk adds: the cut that follows is widened by the margin), walking each term's postings alongside a
 * part's candidates in local order (galloping). Sorted as typed arrays: a comparator sort of 36,000
 * candidates took longer than the lookups themselves.
 *
 * The terms are taken by falling weight, and after each one the candidates that cannot reach the k-th
 * sum any more (their sum plus the weights still to add below it, the k-th sum raised by what the
 * candidates now hold) are dropped: MaxScore's pruning carried on into the lookups, so the commonest
 * words, taken last, are looked up for a few blocks, not thousands. Returns the candidates left (global
 * numbers, in no particular order); the ones dropped keep a partial sum below the k-th sum's margin.
 */
function addRest(index: TopKIndex, rest: readonly TopKTerm[], candidates: Int32Array, acc: Float32Array, k: number, theta: number, keep: number): Int32Array {
  const k1 = index.k1;
  const parts = index.parts;
  // Each part's candidates as local numbers, ascending, their global numbers beside them, and how many
  // are still in (at the front of both).
  const locals: Int32Array[] = [];
  const globals: Int32Array[] = [];
  if (parts.length === 1 && parts[0]!.toGlobal === null) {
    locals.push(candidates.slice().sort());
    globals.push(locals[0]!);
  } else {
    const counts = new Int32Array(parts.length);
    for (let i = 0; i < candidates.length; i++) counts[index.partOf(candidates[i]!)]!++;
    counts.forEach((c) => locals.push(new Int32Array(c)));
    counts.fill(0);
    for (let i = 0; i < candidates.length; i++) {
      const part = index.partOf(candidates[i]!);
      locals[part]![counts[part]!++] = index.localOf(candidates[i]!);
    }
    locals.forEach((l, part) => {
      const toGlobal = parts[part]!.toGlobal;
      globals.push(toGlobal ? l.sort().map((local) => toGlobal[local]!) : l.sort());
    });
  }
  const live = locals.map((l) => l.length);
  const stillIn = () => {
    const out = new Int32Array(live.reduce((a, b) => a + b, 0));
    let at = 0;
    globals.forEach((g, part) => {
      out.set(g.subarray(0, live[part]!), at);
      at += live[part]!;
    });
    return out;
  };
  for (let r = 0; r < rest.length; r++) {
    const t = rest[r]!;
    const w = t.w;
    for (let part = 0; part < parts.length; part++) {
      const n = live[part]!;
      const l = n > 0 ? t.list(part) : undefined;
      if (!l) continue;
      const { text32: text, head32: head } = parts[part]!;
      const loc = locals[part]!;
      const glob = globals[part]!;
      const { blocks, tfs, headTfs } = l;
      let at = 0;
      for (let j = 0; j < n; j++) {
        const local = loc[j]!;
        at = gallop(blocks, at, local);
        if (at >= blocks.length) break;
        if (blocks[at] !== local) continue;
        const x = fieldSum(tfs[at]!, headTfs[at]!, text[local]!, head, local);
        acc[glob[j]!]! += (w * x) / (k1 + x);
      }
    }
    if (r === rest.length - 1) break;
    // The k-th sum so far among the candidates (every block of the top k is one), then the ones that
    // can still reach it with the terms left, kept in order.
    let remaining = 0;
    for (let s = r + 1; s < rest.length; s++) remaining += rest[s]!.w;
    const pool = stillIn();
    if (pool.length > k) theta = Math.max(theta, kthLargest(acc, pool, pool.length, k));
    const bar = theta * keep - remaining;
    globals.forEach((glob, part) => {
      const loc = locals[part]!;
      let kept = 0;
      for (let j = 0; j < live[part]!; j++) {
        if (acc[glob[j]!]! < bar) continue;
        loc[kept] = loc[j]!;
        glob[kept++] = glob[j]!;
      }
      live[part] = kept;
    });
  }
  return stillIn();
}

/**
 * Adds a term's contributions into the accumulator, noting each block it reaches first in `touched`;
 * returns the new count of touched blocks and the largest sum seen (in `top`). One loop per kind of part
 * (the identity without a filter is the common case and the hot one: a million-block question walks
 * hundreds of thousands of postings).
 */
function walkTerm(index: TopKIndex, t: TopKTerm, acc: Float32Array, touched: Int32Array, n: number, top: { v: number }, allowed?: (block: number) => boolean): number {
  const w = t.w;
  const k1 = index.k1;
  let best = top.v;
  for (let part = 0; part < index.parts.length; part++) {
    const l = t.list(part);
    if (!l) continue;
    const { toGlobal, text32: text, head32: head } = index.parts[part]!;
    const { blocks, tfs, headTfs } = l;
    const end = blocks.length;
    if (!toGlobal && !allowed) {
      for (let p = 0; p < end; p++) {
        const b = blocks[p]!;
        const tf = tfs[p]!;
        const h = headTfs[p]!;
        const x = h === 0 ? tf * text[b]! : tf === 0 ? h * head[b]! : tf * text[b]! + h * head[b]!;
        const c = (w * x) / (k1 + x);
        const a = acc[b]!;
        if (c > 0 && a === 0) touched[n++] = b;
        const v = (acc[b] = a + c);
        if (v > best) best = v;
      }
      continue;
    }
    const runs = index.parts[part]!.runs;
    if (runs && !allowed) {
      // The numbering's runs walked alongside the postings (both rise).
      const { starts, deltas } = runs;
      let r = 0;
      let next = starts.length > 1 ? starts[1]! : 0x7fffffff;
      let d = deltas[0]!;
      for (let p = 0; p < end; p++) {
        const local = blocks[p]!;
        if (local >= next) {
          do next = ++r + 1 < starts.length ? starts[r + 1]! : 0x7fffffff;
          while (local >= next);
          d = deltas[r]!;
        }
        if (d === DEAD) continue;
        const b = local + d;
        const tf = tfs[p]!;
        const h = headTfs[p]!;
        const x = h === 0 ? tf * text[local]! : tf === 0 ? h * head[local]! : tf * text[local]! + h * head[local]!;
        const c = (w * x) / (k1 + x);
        const a = acc[b]!;
        if (c > 0 && a === 0) touched[n++] = b;
        const v = (acc[b] = a + c);
        if (v > best) best = v;
      }
      continue;
    }
    for (let p = 0; p < end; p++) {
      const local = blocks[p]!;
      const b = toGlobal ? toGlobal[local]! : local;
      if (b < 0 || (allowed && !allowed(b))) continue;
      const tf = tfs[p]!;
      const h = headTfs[p]!;
      const x = h === 0 ? tf * text[local]! : tf === 0 ? h * head[local]! : tf * text[local]! + h * head[local]!;
      const c = (w * x) / (k1 + x);
      const a = acc[b]!;
      if (c > 0 && a === 0) touched[n++] = b;
      const v = (acc[b] = a + c);
      if (v > best) best = v;
    }
  }
  top.v = best;
  return n;
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
  const keep = 1 - marginFor(terms.length);
  let n = 0;
  const order = terms.map((_, i) => i).sort((a, b) => terms[b]!.w - terms[a]!.w || a - b);
  let remaining = 0;
  for (const t of terms) remaining += t.w;
  let theta = 0;
  /** The largest sum so far: the k-th is at most this, so while the weights left reach it nothing can stop. */
  const top = { v: 0 };
  let walked = order.length;
  try {
    for (let o = 0; o < order.length; o++) {
      const t = terms[order[o]!]!;
      if (n >= k && remaining < top.v * keep) {
        // Sums only grow, so an earlier k-th sum is still a lower bound: worked out again only when
        // that one does not decide.
        if (!(remaining < theta * keep)) theta = kthLargest(acc, touched, n, k);
        if (remaining < theta * keep) {
          // No block left unreached can make the top k. Walk this term only if that costs less than
          // looking it up for every block that still can. Those are counted on every 8th touched
          // block: the count only chooses the cheaper way, both give the same answer, and a full
          // count was a pass over hundreds of thousands of blocks before every term at a million.
          const bar = theta * keep - remaining;
          let count = 0;
          for (let i = 0; i < n; i += 8) if (acc[touched[i]!]! >= bar) count += 8;
          if (t.postings > count * LOOKUP_COST) {
            walked = o;
            break;
          }
        }
      }
      n = walkTerm(index, t, acc, touched, n, top, allowed);
      // What the terms not yet taken could still add (exactly 0 once all are taken).
      remaining = 0;
      for (let r = o + 1; r < order.length; r++) remaining += terms[order[r]!]!.w;
    }
    // Candidates: blocks that may still reach the k-th sum; their sums completed with the terms not walked.
    // Gathered in place at the front of `touched` (each entry is read before one is written there),
    // the rest of it kept for the clean-up below. A check's k-th sum is a lower bound of the k-th now
    // (sums only grow): the blocks it lets through hold every block of the top k, so the k-th sum is
    // worked out over them, not over every touched block again, and they are then cut to it.
    let count = 0;
    if (n < k) count = n;
    else {
      if (theta === 0) theta = kthLargest(acc, touched, n, k);
      count = gather(acc, touched, n, theta * keep - remaining);
      theta = kthLargest(acc, touched, count, k);
      count = gather(acc, touched, count, theta * keep - remaining);
    }
    let candidates: Int32Array = touched.slice(0, count);
    if (walked < order.length) candidates = addRest(index, order.slice(walked).map((i) => terms[i]!), candidates, acc, k, theta, keep);
    const cut = candidates.length > k ? kthLargest(acc, candidates, candidates.length, k) * keep : 0;
    const ranked: RankedBlock[] = [];
    for (let i = 0; i < candidates.length; i++) {
      const b = candidates[i]!;
      if (acc[b]! < cut) continue;
      const s = exactScore(index, terms, b);
      exact.set(b, s);
      if (s > 0) ranked.push({ block: b, score: s });
    }
    ranked.sort((a, b) => b.score - a.score || a.block - b.block);
    return { ranked: ranked.slice(0, k), scoreOf };
  } finally {
    // A large share of the blocks touched: one pass over the accumulator beats a scattered one.
    if (n > acc.length >>> 4) acc.fill(0);
    else for (let i = 0; i < n; i++) acc[touched[i]!] = 0;
  }
}
