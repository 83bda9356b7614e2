import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Document } from '../../src/shared/document';
import { Bm25Index } from '../../src/index/search/bm25-index';
import { buildBm25, keywordFields } from '../../src/index/search/bm25-build';
import { PostingsCache } from '../../src/index/store/postings-cache';
import { readSegmentKeyword2 } from '../../src/index/store/segment-reader';
import { SegmentWriter } from '../../src/index/store/segment-writer';
import { StagedFolder } from '../../src/index/store/staged-folder';
import { tempDir } from '../helpers';

/** A list of n postings whose blocks are `first`, first + 1, … (what `fill` writes). */
function filler(n: number, first: number) {
  return (bytes: Uint8Array) => {
    const blocks = new Uint32Array(bytes.buffer, bytes.byteOffset, n);
    for (let i = 0; i < n; i++) blocks[i] = first + i;
  };
}
const intact = (l: { blocks: Uint32Array }, first: number) => l.blocks.every((b, i) => b === first + i);

describe('postings cache (one buffer, written round and round)', () => {
  it('keeps the lists read last within its budget, the oldest overwritten first', () => {
    const cache = new PostingsCache(100_000);
    // 5,000 postings = 40,000 bytes: two fit.
    cache.begin();
    const a = cache.read('a', 5000, filler(5000, 1));
    cache.begin();
    const b = cache.read('b', 5000, filler(5000, 2));
    assert.equal(cache.get('a'), a);
    cache.begin();
    cache.read('c', 5000, filler(5000, 3));
    assert.deepEqual([!!cache.get('a'), !!cache.get('b'), !!cache.get('c')], [false, true, true], 'a, the oldest, made room for c');
    assert.ok(intact(b, 2) && intact(cache.get('c')!, 3));
    assert.equal(cache.size, 80_000);
    cache.begin();
    cache.read('huge', 20_000, filler(20_000, 4));
    assert.equal(cache.get('huge'), undefined, 'past the budget: not kept');
    cache.read('tiny', 10, filler(10, 5));
    assert.equal(cache.get('tiny'), undefined, 'a small list is read again rather than kept');
    assert.ok(cache.size <= 100_000);
  });

  it('never overwrites a list of the running query: what does not fit gets a buffer of its own', () => {
    const cache = new PostingsCache(100_000);
    cache.begin();
    const lists = [0, 1, 2, 3].map((i) => cache.read(`t${i}`, 5000, filler(5000, 10 * i)));
    lists.forEach((l, i) => assert.ok(intact(l, 10 * i), `list ${i} as read`));
    assert.deepEqual(lists.map((_, i) => !!cache.get(`t${i}`)), [true, true, false, false]);
    // A list reused by the running query is held as well.
    cache.begin();
    const kept = cache.get('t0')!;
    cache.read('u', 5000, filler(5000, 7));
    cache.read('v', 5000, filler(5000, 8));
    assert.ok(intact(kept, 0), 't0, reused by this query, is as it was');
    cache.begin();
    cache.read('w', 5000, filler(5000, 9));
    assert.equal(cache.get('t0'), undefined, 'once its query is over it can go');
  });

  it('grows its buffer as the lists need it, up to the budget, the running query\'s lists whole', () => {
    const cache = new PostingsCache(4 * 1024 * 1024);
    cache.begin();
    // 50,000 postings = 400 KB: the first 1 MB buffer holds two.
    const lists = [0, 1, 2, 3].map((i) => cache.read(`g${i}`, 50_000, filler(50_000, 100_000 * i)));
    lists.forEach((l, i) => assert.ok(intact(l, 100_000 * i), `list ${i} whole after the buffer grew`));
    assert.deepEqual(lists.map((_, i) => !!cache.get(`g${i}`)), [false, false, true, true], 'what the first buffer held is read again');
    for (let q = 0; q < 20; q++) {
      cache.begin();
      for (let i = 0; i < 8; i++) if (!cache.get(`g${i}`)) cache.read(`g${i}`, 50_000, filler(50_000, 100_000 * i));
    }
    assert.equal(cache.size, 8 * 400_000, 'grown to hold all eight (3.2 MB of a 4 MB budget)');
  });

  it('lap after lap of mixed sizes: every list read is whole while its query runs, and kept ones read back as written', () => {
    const cache = new PostingsCache(64 * 1024);
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let q = 0; q < 300; q++) {
      cache.begin();
      const got: Array<[number, ReturnType<PostingsCache['read']>]> = [];
      for (let t = 0; t < 1 + Math.floor(rnd() * 5); t++) {
        const id = Math.floor(rnd() * 40);
        const n = 512 + id * 97;
        const key = `k${id}`;
        got.push([id, cache.get(key) ?? cache.read(key, n, filler(n, id * 1000))]);
      }
      for (const [id, l] of got) assert.ok(intact(l, id * 1000) && l.blocks.length === 512 + id * 97, `query ${q}: list ${id}`);
      assert.ok(cache.size <= 64 * 1024);
    }
  });

  it("a keyword search's scoreOf asked after later searches still scores from the right lists", async () => {
    const root = tempDir();
    // 3,000 blocks, each word in every block: every list is 24 KB; the cache holds two.
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const n = 3000;
    const doc: Document = {
      doc_id: 'd', path: '/d.md', title: 'd', source_label: 's', aliases: [], lang: 'en', format: 'markdown', content_hash: 'd', byte_size: 1, encoding: 'utf-8', page_count: null,
      sections: [{ path: 'A', title: 'A', ordinal: 1, depth: 1, parent_path: null, direct_blocks: n, subtree_blocks: n, direct_tokens: n, subtree_tokens: n, first_sentence: '', location: null }],
      blocks: Array.from({ length: n }, (_, i) => ({ block_id: `b${i}`, block_index: i, section_path: 'A', text: words.map((w, j) => `${w} `.repeat(1 + ((i * (j + 3)) % 7))).join(''), token_count: 1, location: { kind: 'lines' as const, line_start: i + 1, line_end: i + 1 } })),
    };
    const staged = new StagedFolder(root);
    const folder = path.join(root, 'seg');
    const w = await SegmentWriter.create(staged, folder, path.join(root, 'scratch'), n, null);
    const { texts, headings } = keywordFields([doc]);
    await w.add([doc], null, buildBm25(texts, headings));
    await w.finish();
    await staged.sync();
    const fromDisk = new Bm25Index([{ data: await readSegmentKeyword2(folder, n, new PostingsCache(50_000)), toGlobal: null }], n);
    const inMemory = new Bm25Index(buildBm25(texts, headings));
    const first = fromDisk.search('alpha beta', 5);
    for (const q of ['gamma delta', 'epsilon zeta', 'delta zeta']) fromDisk.search(q, 5);
    const want = inMemory.score('alpha beta');
    for (let b = 0; b < n; b += 13) assert.equal(first.scoreOf(b), want[b]! > 0 ? want[b]! : null, `block ${b}`);
  });
});
