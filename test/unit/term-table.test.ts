import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Bm25Index } from '../../src/index/search/bm25-index';
import { buildBm25 } from '../../src/index/search/bm25-build';
import { PACK_FORMAT_VERSION, encodePack, writePack } from '../../src/index/store/binary-pack';
import { StoreError } from '../../src/common/errors';
import { SEGMENT_FILES, readSegmentKeyword } from '../../src/index/store/segment-store';
import { writeKeywordFiles } from '../../src/index/store/segment-writer';
import { readSegmentKeyword2 } from '../../src/index/store/segment-reader';
import { StagedFolder } from '../../src/index/store/staged-folder';
import { PackedTerms, packTerms } from '../../src/index/search/term-table';

describe('packed terms', () => {
  it('give back every term exactly (CJK, accents, an unpaired surrogate, the empty string)', () => {
    const terms = ['', 'a', 'café', 'photosynthesis', '光合', '合作', '\ud800x', '𝔘nicode'];
    const { chars, starts } = packTerms(terms);
    const packed = new PackedTerms(chars, starts);
    assert.equal(packed.length, terms.length);
    assert.deepEqual(Array.from({ length: terms.length }, (_, i) => packed.at(i)), terms);
    assert.equal(packed.at(terms.length), undefined);
  });

  it('give back every term of a table decoded in pieces, read in any order (the last piece partial)', () => {
    // 40,000 terms: two whole pieces of 16,384 and part of a third, as a 1M-block id table has 62.
    const terms = Array.from({ length: 40_000 }, (_, i) => (i % 3 === 0 ? `块${i}` : i % 3 === 1 ? `b${i}x` : ''));
    const { chars, starts } = packTerms(terms);
    // The characters as a view that does not start its buffer, as a pack's arrays are.
    const shifted = new Uint16Array(chars.length + 3);
    shifted.set(chars, 3);
    const packed = new PackedTerms(shifted.subarray(3), starts);
    const order = Array.from({ length: terms.length }, (_, i) => (i * 7_919) % terms.length);
    for (const i of order) assert.equal(packed.at(i), terms[i]);
    for (const i of [16_383, 16_384, 32_767, 32_768, 39_999]) assert.equal(packed.at(i), terms[i]);
    assert.equal(packed.at(-1), undefined);
    assert.equal(packed.at(40_000), undefined);
  });

  it('refuse starts that do not describe the characters', () => {
    assert.throws(() => new PackedTerms(Uint16Array.of(97, 98), Uint32Array.of(0, 3)), /do not match/);
    assert.throws(() => new PackedTerms(Uint16Array.of(97, 98), Uint32Array.of(0, 2, 1, 2)), /not in order/);
  });

  /** A pack as an older DocQA wrote it: the same container, stamped with its format version. */
  const writeOldPack = (file: string, version: number, meta: unknown, arrays: Parameters<typeof encodePack>[1]) => {
    const bytes = encodePack(meta, arrays);
    const stamp = `"formatVersion":${PACK_FORMAT_VERSION}`;
    const at = bytes.indexOf(stamp);
    assert.ok(at > 0 && String(version).length === String(PACK_FORMAT_VERSION).length);
    bytes.write(`"formatVersion":${version}`, at, 'utf8');
    fs.writeFileSync(file, bytes);
  };
  const texts = ['光合作用把光能转化为化学能。', 'Photosynthesis turns light into chemical energy.', 'light and energy'];

  it('a keyword pack listing its terms in the JSON header (as format 1 did) still loads and scores the same', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-terms-'));
    try {
      const data = buildBm25(texts);
      writeOldPack(path.join(dir, SEGMENT_FILES.keyword), 1, { terms: data.terms }, { offsets: data.offsets, blocks: data.blocks, tfs: data.tfs, docLengths: data.docLengths });
      const loaded = await readSegmentKeyword(dir);
      for (const q of ['light energy', '光能', 'photosynthesis']) assert.deepEqual(new Bm25Index(loaded).score(q), new Bm25Index(data).score(q));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a format-2 pack (no headings field) loads with empty headings; a format-3 pack must carry them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-terms-'));
    try {
      const data = buildBm25(texts);
      const { chars, starts } = packTerms(data.terms);
      const v2 = { termChars: chars, termStarts: starts, offsets: data.offsets, blocks: data.blocks, tfs: data.tfs, docLengths: data.docLengths };
      writeOldPack(path.join(dir, SEGMENT_FILES.keyword), 2, {}, v2);
      const loaded = await readSegmentKeyword(dir);
      assert.deepEqual([...loaded.headLengths], [0, 0, 0]);
      for (const q of ['light energy', '光能']) assert.deepEqual(new Bm25Index(loaded).score(q), new Bm25Index(data).score(q));
      await writePack(path.join(dir, SEGMENT_FILES.keyword), {}, v2);
      await assert.rejects(readSegmentKeyword(dir), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt' && /lacks headTfs/.test(e.message));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a segment written with headings reads back equal and scores the same', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-terms-'));
    try {
      const data = buildBm25(texts, ['生物 > 光合作用', 'Biology > Photosynthesis', '']);
      // As a format-1 segment held it (pack format 3, postings inside)...
      const { chars, starts } = packTerms(data.terms);
      fs.mkdirSync(path.join(dir, 'old'));
      writeOldPack(path.join(dir, 'old', SEGMENT_FILES.keyword), 3, {}, { termChars: chars, termStarts: starts, offsets: data.offsets, blocks: data.blocks, tfs: data.tfs, headTfs: data.headTfs, docLengths: data.docLengths, headLengths: data.headLengths });
      const old = await readSegmentKeyword(path.join(dir, 'old'));
      assert.deepEqual([...old.headTfs], [...data.headTfs]);
      assert.deepEqual([...old.headLengths], [...data.headLengths]);
      // ...and as a format-2 segment writes it (postings in their own file, read a term at a time).
      const staged = new StagedFolder(dir);
      await writeKeywordFiles(staged, path.join(dir, 'seg'), [data], data.docLengths, data.headLengths);
      const loaded = await readSegmentKeyword2(path.join(dir, 'seg'), texts.length);
      assert.deepEqual([...loaded.headLengths], [...data.headLengths]);
      for (const q of ['photosynthesis light', '光合作用', '生物']) {
        assert.deepEqual(new Bm25Index(old).score(q), new Bm25Index(data).score(q));
        assert.deepEqual(new Bm25Index([{ data: loaded, toGlobal: null }], texts.length).score(q), new Bm25Index(data).score(q));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
