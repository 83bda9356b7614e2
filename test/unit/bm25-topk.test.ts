import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Bm25Index, type Bm25Part, inMemoryKeyword } from '../../src/index/search/bm25-index';
import { buildBm25 } from '../../src/index/search/bm25-build';
import { mappingRuns } from '../../src/index/search/bm25-topk';
import { topK } from '../../src/index/search/top-k';
import { fixture } from '../helpers';

/**
 * The keyword side's top k (bm25-topk.ts) skips the postings of common words once they cannot change
 * the top k: it must rank and score exactly as the full scan (score + topK) does, for any query, with
 * segments, replaced blocks and filters.
 */
function corpus(): { texts: string[]; headings: string[]; queries: string[] } {
  const texts: string[] = [];
  const headings: string[] = [];
  for (const d of ['markdown', 'notes']) {
    for (const f of fs.readdirSync(fixture(d)).filter((x) => x.endsWith('.md'))) {
      const paras = fs.readFileSync(path.join(fixture(d), f), 'utf8').split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p.length > 20);
      for (const p of paras) {
        texts.push(p);
        headings.push(f.replace(/\.md$/, ''));
      }
    }
  }
  // Many near-duplicates (ties) and common words everywhere, as a large collection has.
  const n = texts.length;
  for (let i = 0; i < 3 * n; i++) {
    texts.push(`the ${texts[i % n]!.slice(0, 80)} of the cell and the 的 是 ${i % 7}`);
    headings.push(i % 2 ? 'Cells' : '');
  }
  const words = texts.join(' ').split(/\s+/).filter((w) => w.length > 1);
  const queries = [
    'the of and',
    'what is the cell membrane',
    '光合作用的作用是什么',
    'volatile 关键字的作用',
    'the',
    '的 是',
    'nothing-matches-this',
    // A pasted passage: hundreds of terms, whose float32 sums round the most.
    words.slice(0, 400).join(' '),
    ...Array.from({ length: 60 }, (_, i) => [words[(i * 7919) % words.length], words[(i * 104729) % words.length], 'the', words[(i * 31) % words.length]].join(' ')),
  ];
  return { texts, headings, queries };
}

function same(index: Bm25Index, query: string, k: number, allowed?: (b: number) => boolean): void {
  const scores = index.score(query, allowed);
  const want = topK(scores, k, 0).map((block) => ({ block, score: scores[block]! }));
  const got = index.search(query, k, allowed);
  assert.deepEqual(got.ranked, want, `${query} (k ${k})`);
  for (let b = 0; b < scores.length; b += 7) assert.equal(got.scoreOf(b), scores[b]! > 0 ? scores[b]! : null, `${query}: block ${b}`);
}

describe('keyword top k without walking every posting', () => {
  const { texts, headings, queries } = corpus();

  it('ranks and scores exactly as the full scan, one segment, k from 1 to 200', () => {
    const index = new Bm25Index(buildBm25(texts, headings));
    for (const q of queries) for (const k of [1, 5, 50, 200]) same(index, q, k);
  });

  it('the same over segments with replaced blocks, and with a filter', () => {
    // Three segments interleaved in global order; every 9th block of the first replaced (dead).
    const n = texts.length;
    const owner = (g: number) => g % 3;
    const parts: Bm25Part[] = [0, 1, 2].map((s) => {
      const globals = Array.from({ length: n }, (_, g) => g).filter((g) => owner(g) === s);
      const local = globals.map((g) => texts[g]!);
      const heads = globals.map((g) => headings[g]!);
      // A replaced block stays in its segment's files with another text, mapped to -1.
      const dead = s === 0 ? globals.map((_, i) => i % 9 === 4) : globals.map(() => false);
      const data = buildBm25(
        local.map((t, i) => (dead[i] ? `${t} stale the replaced` : t)),
        heads,
      );
      return { data: inMemoryKeyword(data), toGlobal: Int32Array.from(globals, (g, i) => (dead[i] ? -1 : g)) };
    });
    // The live blocks renumbered without the dead ones, as a snapshot numbers them.
    const live = Array.from({ length: n }, (_, g) => g).filter((g) => !(owner(g) === 0 && Math.floor(g / 3) % 9 === 4));
    const renumber = new Map(live.map((g, i) => [g, i]));
    for (const p of parts) for (let i = 0; i < p.toGlobal!.length; i++) if (p.toGlobal![i]! >= 0) p.toGlobal![i] = renumber.get(p.toGlobal![i]!)!;
    const index = new Bm25Index(parts, live.length);
    const allowed = (b: number) => b % 5 !== 1;
    for (const q of queries) {
      same(index, q, 50);
      same(index, q, 10, allowed);
    }
  });

  it('the same with a big segment beside a new one: its numbering in a few runs, one of them dead', () => {
    // Segment A holds every block but [m, m + 40), which segment B holds (a book added in doc_id order
    // between A's); A's blocks [d, d + 25) were replaced (dead), so the live blocks are renumbered.
    const n = texts.length;
    const m = Math.floor(n / 2);
    const d = Math.floor(n / 5);
    const inB = (g: number) => g >= m && g < m + 40;
    const aGlobals = Array.from({ length: n }, (_, g) => g).filter((g) => !inB(g));
    const bGlobals = Array.from({ length: 40 }, (_, i) => m + i);
    const dead = (local: number) => local >= d && local < d + 25;
    const live = Array.from({ length: n }, (_, g) => g).filter((g) => inB(g) || !dead(aGlobals.indexOf(g)));
    const renumber = new Map(live.map((g, i) => [g, i]));
    const a = buildBm25(aGlobals.map((g, l) => (dead(l) ? `${texts[g]} stale the replaced` : texts[g]!)), aGlobals.map((g) => headings[g]!));
    const b = buildBm25(bGlobals.map((g) => texts[g]!), bGlobals.map((g) => headings[g]!));
    const parts: Bm25Part[] = [
      { data: inMemoryKeyword(a), toGlobal: Int32Array.from(aGlobals, (g, l) => (dead(l) ? -1 : renumber.get(g)!)) },
      { data: inMemoryKeyword(b), toGlobal: Int32Array.from(bGlobals, (g) => renumber.get(g)!) },
    ];
    assert.deepEqual(mappingRuns(parts[0]!.toGlobal!)!.deltas.length, 4, 'A: before the dead run, the dead run, up to B, after B');
    const index = new Bm25Index(parts, live.length);
    for (const q of queries) {
      same(index, q, 50);
      same(index, q, 10, (blk) => blk % 5 !== 1);
    }
  });

  it('gives the same answer twice (the reused accumulator is left clean)', () => {
    const index = new Bm25Index(buildBm25(texts, headings));
    const first = queries.map((q) => index.search(q, 20).ranked);
    assert.deepEqual(
      queries.map((q) => index.search(q, 20).ranked),
      first,
    );
  });
});
