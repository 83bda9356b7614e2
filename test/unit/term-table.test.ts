import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Bm25Index, buildBm25 } from '../../src/index/bm25-index';
import { writePack } from '../../src/index/binary-pack';
import { SEGMENT_FILES, readSegmentKeyword } from '../../src/index/segment-store';
import { PackedTerms, packTerms } from '../../src/index/term-table';

describe('packed terms', () => {
  it('give back every term exactly (CJK, accents, an unpaired surrogate, the empty string)', () => {
    const terms = ['', 'a', 'café', 'photosynthesis', '光合', '合作', '\ud800x', '𝔘nicode'];
    const { chars, starts } = packTerms(terms);
    const packed = new PackedTerms(chars, starts);
    assert.equal(packed.length, terms.length);
    assert.deepEqual(Array.from({ length: terms.length }, (_, i) => packed.at(i)), terms);
    assert.equal(packed.at(terms.length), undefined);
  });

  it('refuse starts that do not describe the characters', () => {
    assert.throws(() => new PackedTerms(Uint16Array.of(97, 98), Uint32Array.of(0, 3)), /do not match/);
    assert.throws(() => new PackedTerms(Uint16Array.of(97, 98), Uint32Array.of(0, 2, 1, 2)), /not in order/);
  });

  it('a keyword pack listing its terms in the JSON header (as format 1 did) still loads and scores the same', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-terms-'));
    try {
      const data = buildBm25(['光合作用把光能转化为化学能。', 'Photosynthesis turns light into chemical energy.', 'light and energy']);
      await writePack(path.join(dir, SEGMENT_FILES.keyword), { terms: data.terms }, { offsets: data.offsets, blocks: data.blocks, tfs: data.tfs, docLengths: data.docLengths });
      const loaded = await readSegmentKeyword(dir);
      for (const q of ['light energy', '光能', 'photosynthesis']) assert.deepEqual(new Bm25Index(loaded).score(q), new Bm25Index(data).score(q));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
