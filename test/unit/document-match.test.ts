/**
 * The document view's highlight (src/shared/document-match.ts) and the new block locations' persistence:
 * which elements a citation lights up when the file is as indexed, changed, or gone; and the JSON
 * segments of the release before segment format 2, with or without the new locations, still read.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { locationLabel } from '../../src/shared/location-label';
import type { Document } from '../../src/shared/document';
import { readSegmentDocuments } from '../../src/index/store/segment-store';
import { OpenCitationArgs, refParts } from '../../src/shared/citation-target';
import { matchElements, matchKey } from '../../src/shared/document-match';
import { ingestOk, fixture, tempDir } from '../helpers';

const ELEMENTS = [
  { n: 1, text: 'Calvin cycle' },
  { n: 2, text: 'Rubisco fixes carbon dioxide onto ribulose bisphosphate.' },
  { n: 3, text: 'Carbon fixationReductionRegeneration of RuBP' },
  { n: 4, text: 'StagePlaceGlycolysisCytoplasm' },
];

describe('matching a block to rendered elements', () => {
  it('exact: the named elements hold the block (lists and tables compared without their marks)', () => {
    assert.deepEqual(matchElements(ELEMENTS, 2, 2, 'Rubisco fixes carbon dioxide onto ribulose bisphosphate.'), { first: 2, last: 2, match: 'exact' });
    assert.deepEqual(matchElements(ELEMENTS, 3, 3, '1. Carbon fixation\n2. Reduction\n3. Regeneration of RuBP'), { first: 3, last: 3, match: 'exact' });
    assert.deepEqual(matchElements(ELEMENTS, 4, 4, '| Stage | Place |\n| --- | --- |\n| Glycolysis | Cytoplasm |'), { first: 4, last: 4, match: 'exact' });
    assert.deepEqual(matchElements(ELEMENTS, 2, 3, 'Rubisco fixes carbon dioxide onto ribulose bisphosphate.\n\n1. Carbon fixation'), { first: 2, last: 3, match: 'exact' });
  });

  it('moved: the file changed and the text is elsewhere; none: it is gone, the old spot is shown', () => {
    assert.deepEqual(matchElements(ELEMENTS, 1, 1, 'Rubisco fixes carbon dioxide'), { first: 2, last: 2, match: 'moved' });
    assert.deepEqual(matchElements(ELEMENTS, 2, 2, 'Photosystem II splits water'), { first: 2, last: 2, match: 'none' });
    assert.deepEqual(matchElements(ELEMENTS, 9, 9, 'Photosystem II splits water'), { first: 0, last: 0, match: 'none' });
  });

  it('keys ignore case, width, white space and list or table marks', () => {
    assert.equal(matchKey('- ＡＴＰ Synthase\n| a | b |\n| --- | --- |'), 'atpsynthaseab');
  });
});

describe('citation targets', () => {
  it('take a ref, its halves, or a location; anything else is refused', () => {
    assert.deepEqual(refParts(OpenCitationArgs.parse({ ref: 'd0001#b12ab34cd', snapshot_id: 's1' }) as { ref: string }), { doc_id: 'd0001', block_id: 'b12ab34cd', snapshot_id: 's1' });
    assert.ok(OpenCitationArgs.safeParse({ path: '/x.pptx', location: { kind: 'slide', slide: 3, first: 2, last: 2 } }).success);
    for (const bad of [{ ref: 'no-hash' }, { path: '/x.docx', location: { kind: 'slide', slide: 0, first: 1, last: 1 } }, { doc_id: '' }, null, 'd#b']) assert.ok(!OpenCitationArgs.safeParse(bad).success, JSON.stringify(bad));
  });

  it('locations read as words', () => {
    assert.deepEqual(
      [locationLabel({ kind: 'paragraphs', first: 4, last: 6 }), locationLabel({ kind: 'chapter', chapter: 3, first: 2, last: 2 }), locationLabel({ kind: 'slide', slide: 4, first: 1, last: 3 }), locationLabel({ kind: 'page', page: 2 })],
      ['¶ 4-6', 'chapter 3 ¶ 2', 'slide 4 ¶ 1-3', 'page 2'],
    );
  });
});

describe('segments holding the new locations', () => {
  // Segment format 2 (issue 37) stores every location kind in its block table (segment-files.test.ts);
  // the JSON segments DocQA wrote before it, documents.json of formatVersion 1 or 2, are still read.
  it('a documents.json of formatVersion 2 (a deck and a note, as the previous release wrote it) reads back', async () => {
    const deck = await ingestOk(fixture('formats', 'respiration-slides.pptx'));
    const note = await ingestOk(fixture('markdown', 'cell-notes.md'));
    const folder = tempDir();
    for (const [version, docs] of [[1, [note]], [2, [note, deck]]] as Array<[number, Document[]]>) {
      fs.writeFileSync(path.join(folder, 'documents.json'), `${JSON.stringify({ formatVersion: version, documents: docs })}\n`);
      assert.deepEqual(await readSegmentDocuments(folder), docs);
    }
  });
});
