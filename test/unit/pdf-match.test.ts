import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { loadPdfJs, resolvePdfAssets } from '../../src/index/parse/pdf-runtime';
import { type PageTextItem, matchBlock, matchKey, pageLines } from '../../src/shared/pdf-match';
import { fixture } from '../helpers';

// This process parses PDFs itself, as an ingestion worker does (pdf.js runs in prepared threads only).
preparePdfThread();

const items = (...lines: string[][]): PageTextItem[] =>
  lines.flatMap((line, l) => line.map((str, i) => ({ str, eol: i === line.length - 1, y: 700 - l * 14 })));
const strs = (all: PageTextItem[], picked: number[]) => picked.map((i) => all[i]!.str);

describe('PDF highlight matching (block text → text items)', () => {
  it('finds a block across wrapped, hyphenated lines and leaves the header and footer out', () => {
    const page = items(
      ['BIO 101 - Lecture 3'],
      ['Light reactions take place in the thylakoid mem-'],
      ['branes of the chloroplast. They ', 'convert light'],
      ['energy into chemical energy.'],
      ['Water is split.'],
      ['Page 1 of 4'],
    );
    const m = matchBlock(page, 'Light reactions take place in the thylakoid membranes of the chloroplast. They convert light energy into chemical energy.');
    assert.equal(m.kind, 'exact');
    assert.deepEqual(strs(page, m.items), ['Light reactions take place in the thylakoid mem-', 'branes of the chloroplast. They ', 'convert light', 'energy into chemical energy.']);
  });

  it('ignores case, whitespace and compatibility forms (ligatures, full-width letters), in Chinese too', () => {
    assert.equal(matchKey('  The ﬁrst  Ｆit\n'), 'thefirstfit');
    const page = items(['第一章 光反应'], ['光反应发生在叶绿体的类囊体膜上，把光能转化为'], ['化学能。水被分解，释放出氧气。']);
    const m = matchBlock(page, '光反应发生在叶绿体的类囊体膜上，把光能转化为化学能。水被分解，释放出氧气。');
    assert.equal(m.kind, 'exact');
    assert.deepEqual(m.items, [1, 2]);
  });

  it('takes the first of two equal runs, and only items that have text', () => {
    const page: PageTextItem[] = [{ str: 'Review questions', eol: true }, { str: '', eol: true }, { str: 'Why ATP?', eol: true }, { str: 'Review questions', eol: true }];
    assert.deepEqual(matchBlock(page, 'Review questions'), { kind: 'exact', items: [0] });
  });

  it('falls back to the lines that mostly consist of the block (approximate) when no run matches', () => {
    // The block goes on onto the next page, and the indexer saw one word differently.
    const page = items(['Header line of the course'], ['Pumps move ions against'], ['their gradient using ATP.'], ['Unrelated closing remark here']);
    const m = matchBlock(page, 'Pumps move ions against their gradient using ATP and the next page continues with more text.');
    assert.equal(m.kind, 'approximate');
    assert.deepEqual(strs(page, m.items), ['Pumps move ions against', 'their gradient using ATP.']);
  });

  it('finds nothing when nothing overlaps, and for an empty block', () => {
    const page = items(['Photosynthesis'], ['Glycolysis']);
    assert.deepEqual(matchBlock(page, 'Zymurgy quorum vexing'), { kind: 'none', items: [] });
    assert.deepEqual(matchBlock(page, ' \n '), { kind: 'none', items: [] });
    assert.deepEqual(matchBlock([], 'anything'), { kind: 'none', items: [] });
  });

  it('breaks lines at an end-of-line item or where the baseline moves', () => {
    assert.deepEqual(pageLines([{ str: 'a', y: 10 }, { str: 'b', y: 10 }, { str: 'c', y: 30 }, { str: 'd', y: 30, eol: true }, { str: 'e' }]), [[0, 1], [2, 3], [4]]);
  });

  it('matches every block of every fixture PDF exactly on its page, as ingestion made it and pdf.js extracts the page', async () => {
    const pdfjs = await loadPdfJs();
    const assets = resolvePdfAssets();
    const dir = path.dirname(fixture('pdf', 'cell-lecture.pdf'));
    let blocks = 0;
    // The scans have no text layer to highlight: a citation of their OCR text opens at its page, unhighlighted (docs/pdf-page-view.md).
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.pdf') && !n.startsWith('scanned-')).sort()) {
      const file = path.join(dir, name);
      const r = await ingestFile(file, { doc_id: 'd', source_label: 'fixtures', aliases: [] }, DEFAULT_INGEST_OPTIONS);
      assert.ok(r.ok, `${name} ingests`);
      const task = pdfjs.getDocument({ data: new Uint8Array(fs.readFileSync(file)), cMapUrl: assets.cMapUrl, cMapPacked: true, standardFontDataUrl: assets.standardFontDataUrl, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 });
      const doc = await task.promise;
      for (const b of r.document.blocks) {
        assert.equal(b.location.kind, 'page');
        if (b.location.kind !== 'page') continue;
        const content = await (await doc.getPage(b.location.page)).getTextContent();
        const pageItems = content.items.flatMap((it) => ('str' in it ? [{ str: it.str, eol: it.hasEOL, y: it.transform[5] as number }] : []));
        const m = matchBlock(pageItems, b.text);
        assert.equal(m.kind, 'exact', `${name} p.${b.location.page}: ${b.text.slice(0, 80)}`);
        // The highlighted items hold the block's whole text, in order (an item may hold more than the block).
        assert.ok(matchKey(strs(pageItems, m.items).join('')).includes(matchKey(b.text)), `${name}: the items hold the block`);
        blocks++;
      }
      await task.destroy();
    }
    assert.ok(blocks > 250, `checked ${blocks} blocks`);
  });
});
