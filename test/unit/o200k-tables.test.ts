import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { BpeMerger, packRanks } from '../../src/common/bpe-merger';
import { readTokenizerTables, writeTokenizerTables } from '../../src/common/o200k-tables';
import { countTokens, fillClassTable, preTokenize } from '../../src/common/tokenizer';
import { filesUnder, FIXTURES } from '../helpers';

function units(text: string): Uint16Array {
  return Uint16Array.from(text, (_, i) => text.charCodeAt(i));
}

describe('the tokenizer tables file (dist/o200k.bin)', () => {
  const classes = fillClassTable(new Uint8Array(0x10000));
  const built = BpeMerger.fromRanks(o200kRanks);
  const file = writeTokenizerTables(classes, built);

  it('reads back the class table and a merger that counts every chunk as the one built from the ranks', () => {
    const read = readTokenizerTables(file);
    assert.ok(Buffer.from(read.classes).equals(classes));
    const text = filesUnder(FIXTURES).filter((f) => /\.(md|txt)$/.test(f)).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const chunks = [...new Set(preTokenize(text))];
    assert.ok(chunks.length > 1000, `${chunks.length} chunks`);
    for (const c of chunks) assert.equal(read.merger.count(units(c), 0, c.length), built.count(units(c), 0, c.length), JSON.stringify(c));
  });

  it('reads a file whose bytes do not start on a word boundary (a slice of a larger buffer)', () => {
    const larger = new Uint8Array(file.length + 1);
    larger.set(file, 1);
    const read = readTokenizerTables(larger.subarray(1));
    assert.equal(read.merger.count(units('photosynthesis'), 0, 14), built.count(units('photosynthesis'), 0, 14));
  });

  it('refuses a file that is not one, is cut short or runs on, or whose ranks are not packed ranks, saying so', () => {
    assert.throws(() => readTokenizerTables(new Uint8Array(8)), /not a tokenizer table file of version 1/);
    assert.throws(() => readTokenizerTables(packRanks(['a', 'b'])), /not a tokenizer table file/);
    assert.throws(() => readTokenizerTables(file.subarray(0, file.length - 4)), /is \d+ bytes where its header says \d+/);
    assert.throws(() => readTokenizerTables(Uint8Array.from([...file.subarray(0, 64), ...new Uint8Array(8)])), /is 72 bytes where its header says/);
    const badHeader = file.slice();
    new DataView(badHeader.buffer).setUint32(20, 12345, true);
    assert.throws(() => readTokenizerTables(badHeader), /a header this version does not read/);
    const badArena = file.slice();
    badArena[32 + 0x10000] = 0;
    assert.throws(() => readTokenizerTables(badArena), /does not hold packed ranks/);
    assert.throws(() => writeTokenizerTables(new Uint8Array(10), built), /65536 entries, not 10/);
  });

  it('a worker counts over the tables its host shared, not a copy of its own', async () => {
    const shared = new SharedArrayBuffer(file.length);
    new Uint8Array(shared).set(file);
    const texts = ['photosynthesis converts light energy', '细胞膜的结构与功能', 'x'.repeat(300), '<|endoftext|> and 2026-12-03'];
    const script = `
      require('tsx/cjs');
      const { parentPort, workerData } = require('node:worker_threads');
      const t = require(${JSON.stringify(require.resolve('../../src/common/tokenizer'))});
      t.useSharedTokenizerTables(workerData.tables);
      const counts = workerData.texts.map((x) => t.countTokens(x));
      let refused = '';
      try { t.useSharedTokenizerTables(new SharedArrayBuffer(8)); } catch (e) { refused = e.message; }
      const ranksLoaded = Object.keys(require.cache).some((k) => k.includes('bpeRanks'));
      parentPort.postMessage({ counts, same: t.shareTokenizerTables() === workerData.tables, refused, ranksLoaded });`;
    const w = new Worker(script, { eval: true, workerData: { tables: shared, texts } });
    try {
      const [r] = (await once(w, 'message')) as [{ counts: number[]; same: boolean; refused: string; ranksLoaded: boolean }];
      // Run from source there is no tables file: a worker left to itself builds them from the package's ranks.
      assert.equal(r.ranksLoaded, false, 'the worker built no tables of its own');
      assert.deepEqual(r.counts, texts.map((t) => countTokens(t)), 'the same counts as this thread\'s');
      assert.equal(r.same, true, 'the shared bytes are the tables it counts with');
      assert.match(r.refused, /in use already/, 'tables are not swapped once counting began');
    } finally {
      await w.terminate();
    }
  });
});
