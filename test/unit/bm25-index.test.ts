import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BM25_B, BM25_K1, Bm25Index, inMemoryKeyword } from '../../src/index/search/bm25-index';
import { buildBm25, buildBm25Yielding, keywordHeading } from '../../src/index/search/bm25-build';
import { buildBm25OffThread } from '../../src/index/search/bm25-off-thread';
import { PackedTerms } from '../../src/index/search/term-table';
import { hybridSearch, topK } from '../../src/index/search/hybrid-search';
import { CJK_CHAR_WEIGHT, keywordTokens, queryTerms } from '../../src/index/search/keyword-tokenizer';
import { VectorIndex } from '../../src/index/search/vector-index';

describe('keyword tokens', () => {
  it('words for alphabetic scripts, characters and pairs for CJK, case and width folded', () => {
    assert.deepEqual(keywordTokens('DeepSeek ｖ4 光合作用!'), ['deepseek', 'v4', '光', '光合', '合', '合作', '作', '作用', '用']);
    assert.deepEqual(keywordTokens('Café—naïve'), ['café', 'naïve']);
  });

  it('end a word where a CJK run starts, so the run is searchable when no space separates them', () => {
    assert.deepEqual(keywordTokens('volatile关键字'), ['volatile', '关', '关键', '键', '键字', '字']);
    assert.deepEqual(keywordTokens('3月由ω-force开发'), ['3', '月', '月由', '由', 'ω', 'force', '开', '开发', '发']);
    assert.deepEqual(keywordTokens('コーヒー'), ['コ', 'コー', 'ー', 'ーヒ', 'ヒ', 'ヒー', 'ー']);
  });
});

describe('query terms', () => {
  const all = () => true;
  it('weigh a CJK run as its characters over its bigrams, so each word counts alike whatever its script', () => {
    const terms = queryTerms('volatile 关键字的作用', all);
    assert.deepEqual(terms.map((t) => t.term), ['volatile', '关键', '键字', '字的', '的作', '作用']);
    assert.equal(terms[0]!.weight, 1);
    for (const t of terms.slice(1)) assert.ok(Math.abs(t.weight - 0.6) < 1e-12, t.term);
    assert.ok(Math.abs(terms.slice(1).reduce((n, t) => n + t.weight, 0) - 6 * CJK_CHAR_WEIGHT) < 1e-12, 'six characters weigh three words');
    assert.deepEqual(queryTerms('光', all), [{ term: '光', weight: CJK_CHAR_WEIGHT }]);
    assert.deepEqual(queryTerms('TCP tcp ＴＣＰ', all), [{ term: 'tcp', weight: 1 }], 'distinct, folded');
  });

  it('stand a pair’s characters in for a pair the collection does not hold', () => {
    const terms = queryTerms('三次握手', (t) => t !== '次握');
    assert.deepEqual(terms.map((t) => [t.term, Math.round(t.weight * 1000) / 1000]), [['三次', 0.667], ['次', 0.333], ['握', 0.333], ['握手', 0.667]]);
  });
});

describe('BM25 index', () => {
  const texts = ['the cat sat on the mat', 'the dog sat', 'cats and dogs', '光合作用发生在叶绿体', '叶绿体是细胞器', ''];

  it('ranks by textbook BM25 with term frequency, and finds Chinese by substring pairs', () => {
    const idx = new Bm25Index(buildBm25(texts));
    const s = idx.score('cat mat');
    assert.equal(topK(s, 1, 0)[0], 0);
    assert.equal(s[1], 0);
    assert.deepEqual(topK(idx.score('叶绿体'), 5, 0), [4, 3], 'the shorter block ranks first for the same term');
    assert.deepEqual(topK(idx.score('nothing here'), 5, 0), []);
    assert.deepEqual(topK(idx.score('sat', (b) => b !== 0), 5, 0), [1]);
  });

  it('scores textbook BM25 where blocks have no headings', () => {
    let seed = 7;
    const r = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const words = ['cell', 'membrane', 'protein', 'energy', 'light', 'water', '光合', '细胞', '叶绿体'];
    const docs = Array.from({ length: 60 }, () => Array.from({ length: 1 + Math.floor(r() * 12) }, () => words[Math.floor(r() * words.length)]!).join(' '));
    const idx = new Bm25Index(buildBm25(docs));
    const toks = docs.map((d) => keywordTokens(d));
    const avgdl = toks.reduce((n, t) => n + t.length, 0) / docs.length;
    for (const q of ['cell energy', 'water', 'membrane protein light']) {
      const expected = toks.map((t) =>
        q.split(' ').reduce((s, term) => {
          const tf = t.filter((x) => x === term).length;
          const df = toks.filter((x) => x.includes(term)).length;
          if (!tf) return s;
          return s + Math.log(1 + (docs.length - df + 0.5) / (df + 0.5)) * ((tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * t.length) / avgdl)));
        }, 0),
      );
      const got = idx.score(q);
      expected.forEach((e, i) => assert.ok(Math.abs(got[i]! - e) < 1e-9, `${q}: block ${i} ${got[i]} vs ${e}`));
    }
  });

  it('counts a block’s headings: the section a query names outranks a paragraph that only mentions its words', () => {
    const texts = ['UDP 没有拥塞控制，TCP 有拥塞控制和流量控制。', '发送方维护一个拥塞窗口 cwnd，慢开始之后进入拥塞避免。', '三次握手建立连接。'];
    const headings = ['网络 > TCP 和 UDP 的区别', '网络 > TCP 拥塞控制', '网络 > TCP 三次握手'];
    assert.equal(topK(new Bm25Index(buildBm25(texts)).score('TCP 拥塞控制'), 1, 0)[0], 0, 'by text alone the mention wins');
    const idx = new Bm25Index(buildBm25(texts, headings));
    assert.deepEqual(topK(idx.score('TCP 拥塞控制'), 3, 0), [1, 0, 2]);
    // A term only in the headings finds the block.
    assert.deepEqual(topK(idx.score('区别'), 3, 0), [0]);
  });

  it('makes a block’s headings of its document title and section path, without repeats or the preamble placeholder', () => {
    assert.equal(keywordHeading('计算机网络', '计算机网络 > 传输层 > TCP'), '计算机网络 > 传输层 > TCP');
    assert.equal(keywordHeading('计算机网络', '计算机网络'), '计算机网络');
    assert.equal(keywordHeading('Java基础', '集合 > HashMap'), 'Java基础 > 集合 > HashMap');
    assert.equal(keywordHeading('操作系统', '(preamble)'), '操作系统');
    assert.equal(keywordHeading('Cells', 'Cells and tissues'), 'Cells > Cells and tissues');
  });

  it('finds a one-character query’s character anywhere, and a pair no block holds by its characters', () => {
    const idx = new Bm25Index(buildBm25(['光合作用发生在叶绿体', '阳光充足', '植物细胞', '合成']));
    assert.deepEqual(topK(idx.score('光'), 5, 0), [1, 0]);
    assert.deepEqual(topK(idx.score('合光'), 5, 0), [0, 3, 1], 'both characters first, then either (the shorter block first)');
  });

  it('keeps both frequencies of a posting, the text’s clamped at 65,535', () => {
    const data = buildBm25(['cell '.repeat(70000), 'cell wall'], ['Cells > cell cell', '']);
    const id = [...Array(data.terms.length).keys()].find((i) => data.terms.at(i) === 'cell')!;
    assert.deepEqual([...data.tfs.subarray(data.offsets[id]!, data.offsets[id + 1]!)], [65535, 1]);
    assert.deepEqual([...data.headTfs.subarray(data.offsets[id]!, data.offsets[id + 1]!)], [2, 0]);
    assert.deepEqual([...data.headLengths], [3, 0]);
  });

  it('builds the same index in slices that yield to the event loop', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => `block ${i} about topic${i % 17}`);
    const heads = many.map((_, i) => `Chapter ${i % 13} > topic${i % 5}`);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const sliced = await buildBm25Yielding(many, heads);
    clearInterval(timer);
    assert.deepEqual(sliced, buildBm25(many, heads));
    assert.ok(ticks > 0, 'timers ran while it was building');
  });

  it('loads in slices (a large snapshot leaves the event loop free): the same scores as one built at once', async () => {
    // 280,000 blocks in two parts, the first with replaced blocks, as a loaded snapshot has them.
    const n = 140_000;
    // Two terms: 'common' in every 3rd block, 'rare' in every 1,000th; lengths that vary.
    const part = (seed: number) => {
      const common = Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 === 0);
      const rare = common.filter((i) => i % 1000 === 0);
      const blocks = Uint32Array.from([...common, ...rare]);
      return {
        terms: ['common', 'rare'],
        offsets: Uint32Array.of(0, common.length, blocks.length),
        blocks,
        tfs: Uint16Array.from(blocks, (b) => 1 + (b % 4)),
        headTfs: Uint16Array.from(blocks, (b) => b % 2),
        docLengths: Uint32Array.from({ length: n }, (_, i) => 20 + ((i * seed) % 300)),
        headLengths: Uint32Array.from({ length: n }, (_, i) => (i % 4 === 0 ? 0 : 3 + (i % 5))),
      };
    };
    const toGlobal = Int32Array.from({ length: n }, (_, i) => (i % 10 === 3 ? -1 : 0));
    let g = 0;
    for (let i = 0; i < n; i++) if (toGlobal[i] === 0) toGlobal[i] = g++;
    const second = Int32Array.from({ length: n }, (_, i) => g + i);
    const parts = [
      { data: inMemoryKeyword(part(7)), toGlobal },
      { data: inMemoryKeyword(part(13)), toGlobal: second },
    ];
    let ticks = 0;
    const loaded = await Bm25Index.load(parts, g + n, async () => {
      ticks++;
    });
    // Two passes over each part, each giving the loop back every 65,536 blocks.
    assert.ok(ticks >= 2 * 2 * Math.floor(n / 65_536), `gave the loop back ${ticks} times`);
    const whole = new Bm25Index(parts, g + n);
    for (const q of ['common', 'rare common', 'rare']) {
      assert.deepEqual(loaded.score(q), whole.score(q), q);
      assert.deepEqual(loaded.search(q, 10).ranked, whole.search(q, 10).ranked, q);
    }
  });

  it('builds the same index in a worker thread (terms packed), and a cancelled build ends its worker', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => `block ${i} about topic${i % 17} 细胞膜${i % 7}`);
    const heads = many.map((_, i) => `Chapter ${i % 13} > topic${i % 5}`);
    const off = await buildBm25OffThread(many, heads);
    const here = buildBm25(many, heads);
    assert.ok(off.terms instanceof PackedTerms, 'built in the worker, not in slices here');
    assert.deepEqual(Array.from({ length: off.terms.length }, (_, i) => off.terms.at(i)), here.terms);
    assert.deepEqual({ ...off, terms: null }, { ...here, terms: null });
    const ac = new AbortController();
    const cancelled = buildBm25OffThread(many, heads, ac.signal);
    ac.abort();
    await assert.rejects(cancelled, { name: 'AbortError' });
  });

  it('hybrid search fuses both rankings by RRF and breaks ties by block order', () => {
    const idx = new Bm25Index(buildBm25(['apple pie', 'apple tart', 'banana bread']));
    const vec = new VectorIndex(Float32Array.of(1, 0, 0.6, 0.8, 0, 1), 2);
    const hits = hybridSearch(idx, vec, 'apple', Float32Array.of(0, 1), 3);
    // BM25 ranks 0, 1 (equal scores, block order); vector ranks 2, 1, 0.
    // Fused: 0 → 1/61 + 1/63, 1 → 1/62 + 1/62, 2 → 1/61.
    assert.deepEqual(hits.map((h) => h.block), [0, 1, 2]);
    assert.deepEqual(hits.map((h) => [h.bm25_rank, h.vector_rank]), [[1, 3], [2, 2], [null, 1]]);
    // Identical blocks tie exactly and keep block order, run after run.
    const twins = new Bm25Index(buildBm25(['same words', 'same words']));
    const twinVec = new VectorIndex(Float32Array.of(1, 0, 1, 0), 2);
    for (let i = 0; i < 3; i++) assert.deepEqual(hybridSearch(twins, twinVec, 'same', Float32Array.of(1, 0), 2).map((h) => h.block), [0, 1]);
    const keywordOnly = hybridSearch(idx, null, 'apple', null, 3);
    assert.deepEqual(keywordOnly.map((h) => [h.block, h.vector_rank]), [[0, null], [1, null]]);
  });
});

describe('topK', () => {
  it('equals a full sort (score desc, index asc) on random inputs with many ties', () => {
    const reference = (s: Float64Array, k: number, min: number) => {
      const idx: number[] = [];
      for (let i = 0; i < s.length; i++) if (s[i]! > min) idx.push(i);
      return idx.sort((a, b) => s[b]! - s[a]! || a - b).slice(0, k);
    };
    let seed = 1;
    const r = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let t = 0; t < 3000; t++) {
      const s = Float64Array.from({ length: Math.floor(r() * 60) }, () => Math.floor(r() * 6) - 1);
      const k = Math.floor(r() * 10);
      const min = r() < 0.5 ? 0 : -Infinity;
      assert.deepEqual(topK(s, k, min), reference(s, k, min));
    }
  });
});
