import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Bm25Data, Bm25Builder, buildBm25 } from '../../src/index/search/bm25-build';
import { Bm25OffThread } from '../../src/index/search/bm25-off-thread';
import { PackedTerms } from '../../src/index/search/term-table';

const batch = (k: number, n: number) => {
  const texts = Array.from({ length: n }, (_, i) => `batch ${k} block ${i} about topic${(i + k) % 17} 细胞膜${i % 7}`);
  const heads = texts.map((_, i) => `Chapter ${(i + k) % 13} > topic${i % 5}`);
  return { texts, heads };
};

/** `off` (built in the worker) is the index built here of the same blocks. */
function assertBuiltHere(off: Bm25Data, texts: string[], heads: string[], label: string): void {
  const here = buildBm25(texts, heads);
  assert.ok(off.terms instanceof PackedTerms, `${label}: built in the worker`);
  assert.deepEqual(Array.from({ length: off.terms.length }, (_, i) => off.terms.at(i)), here.terms, label);
  assert.deepEqual({ ...off, terms: null }, { ...here, terms: null }, label);
}

describe('one keyword-index worker for every batch of a build', () => {
  it('its builder starts each batch afresh but keeps the postings arrays it grew', () => {
    const builder = new Bm25Builder();
    for (const [k, n] of [[0, 2500], [1, 300], [2, 1200]] as const) {
      const { texts, heads } = batch(k, n);
      builder.add(texts.slice(0, 100), heads.slice(0, 100));
      builder.add(texts.slice(100), heads.slice(100));
      assert.deepEqual(builder.finish(), buildBm25(texts, heads), `batch ${k}`);
      const grown = builder.capacity;
      builder.reset();
      assert.equal(builder.capacity, grown, 'the arrays stay for the next batch');
    }
  });

  it('builds batch after batch in one worker, each the same as built here (nothing of one batch in the next)', async () => {
    const indexer = new Bm25OffThread();
    try {
      for (const [k, n] of [[0, 1200], [1, 300], [2, 2500]] as const) {
        const { texts, heads } = batch(k, n);
        assertBuiltHere(await indexer.build(texts, heads), texts, heads, `batch ${k}`);
      }
    } finally {
      await indexer.close();
    }
  });

  it('feeds a batch document by document while the batch before is built; the answers come in order, each its own batch\'s', async () => {
    const indexer = new Bm25OffThread();
    try {
      const batches = [batch(0, 2500), batch(1, 300), batch(2, 1200)];
      const answers: Array<Promise<Bm25Data>> = [];
      for (const { texts, heads } of batches) {
        const job = indexer.begin();
        // Documents of uneven sizes, one after another; the worker is still on the batch before.
        for (let i = 0; i < texts.length; ) {
          const n = 1 + ((i * 7) % 1500);
          await job.add(texts.slice(i, i + n), heads.slice(i, i + n));
          i += n;
        }
        assert.throws(() => indexer.begin(), /one keyword index is fed at a time/, 'a batch is finished before the next begins');
        answers.push(job.finish());
      }
      (await Promise.all(answers)).forEach((off, k) => assertBuiltHere(off, batches[k]!.texts, batches[k]!.heads, `batch ${k}`));
    } finally {
      await indexer.close();
    }
  });

  it('cuts the next batches\' arrays from the buffers given back, overwriting what they held', async () => {
    const indexer = new Bm25OffThread();
    try {
      const big = batch(0, 2500);
      const first = await indexer.build(big.texts, big.heads);
      const given = new Set([first.offsets, first.blocks, first.tfs, first.headTfs].map((a) => a.buffer.byteLength));
      indexer.recycle(first);
      assert.equal(first.blocks.length, 0, 'the arrays went back to the worker (this side can no longer read them)');
      for (const [k, n] of [[1, 300], [2, 1200]] as const) {
        const { texts, heads } = batch(k, n);
        const off = await indexer.build(texts, heads);
        assertBuiltHere(off, texts, heads, `batch ${k}`);
        if (k === 1) assert.ok([off.offsets, off.blocks, off.tfs, off.headTfs].some((a) => given.has(a.buffer.byteLength)), 'a smaller batch\'s arrays are cut from the buffers given back');
        indexer.recycle(off);
      }
      // An index built on this thread has nothing to give back.
      const local = new Bm25OffThread(null);
      const here = await local.build(big.texts, big.heads);
      local.recycle(here);
      assert.equal(here.blocks.length, buildBm25(big.texts, big.heads).blocks.length);
    } finally {
      await indexer.close();
    }
  });

  it('cancelling rejects every batch still awaited; a batch begun after gets a fresh worker', async () => {
    const indexer = new Bm25OffThread();
    try {
      const ac = new AbortController();
      const first = indexer.begin(ac.signal);
      await first.add(batch(0, 2500).texts, batch(0, 2500).heads);
      const one = first.finish();
      const second = indexer.begin(ac.signal);
      await second.add(batch(1, 300).texts, batch(1, 300).heads);
      const two = second.finish();
      ac.abort();
      await assert.rejects(one, { name: 'AbortError' });
      await assert.rejects(two, { name: 'AbortError' });
      const next = batch(2, 400);
      const off = await indexer.build(next.texts, next.heads);
      assert.deepEqual({ ...off, terms: null }, { ...buildBm25(next.texts, next.heads), terms: null });
    } finally {
      await indexer.close();
    }
  });

  it('a cancelled batch ends its worker; the next batch gets a fresh one and the right index', async () => {
    const indexer = new Bm25OffThread();
    try {
      const { texts, heads } = batch(0, 2500);
      const ac = new AbortController();
      const cancelled = indexer.build(texts, heads, ac.signal);
      ac.abort();
      await assert.rejects(cancelled, { name: 'AbortError' });
      const next = batch(1, 400);
      const off = await indexer.build(next.texts, next.heads);
      assert.deepEqual({ ...off, terms: null }, { ...buildBm25(next.texts, next.heads), terms: null });
    } finally {
      await indexer.close();
    }
  });
});
