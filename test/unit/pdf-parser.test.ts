import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import { joinWrapped } from '../../src/index/parse/pdf';
import fs from 'node:fs';
import path from 'node:path';
import { UNMERGED, blockView, fixture, ingestOk, outline, tempDir } from '../helpers';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';

// This test process parses PDFs itself, as an ingestion worker does (pdf.js runs in workers only).
preparePdfThread();

describe('PDF parser', () => {
  it('maps a nested outline with page-top destinations onto its heading lines, repairs wrapped and hyphenated lines', async () => {
    const d = await ingestOk(fixture('pdf', 'photosynthesis-en.pdf'));
    assert.equal(d.title, 'Photosynthesis Notes', 'title from the PDF metadata');
    assert.equal(d.page_count, 3);
    assert.deepEqual(outline(d), [
      ['(preamble)', 1],
      ['1 Light Reactions', 1],
      ['2 Calvin Cycle', 1],
      ['2 Calvin Cycle > 2.1 Carbon Fixation', 2],
      ['2 Calvin Cycle > 2.2 Regeneration', 2],
    ]);
    assert.deepEqual(blockView(d), [
      ['(preamble)', 'p1', 'Photosynthesis Notes'],
      ['(preamble)', 'p1', 'Plants turn light into sugar. These notes follow the two stages.'],
      ['1 Light Reactions', 'p1', '1 Light Reactions'],
      ['1 Light Reactions', 'p1', 'Light reactions take place in the thylakoid membranes of the chloroplast. They convert light energy into chemical energy.'],
      ['1 Light Reactions', 'p1', 'Water molecules are split and oxygen is released.'],
      ['2 Calvin Cycle', 'p2', '2 Calvin Cycle'],
      ['2 Calvin Cycle', 'p2', 'The Calvin cycle builds sugar from carbon dioxide.'],
      ['2 Calvin Cycle > 2.1 Carbon Fixation', 'p2', '2.1 Carbon Fixation'],
      ['2 Calvin Cycle > 2.1 Carbon Fixation', 'p2', 'The enzyme RuBisCO attaches carbon dioxide to ribulose bisphosphate.'],
      ['2 Calvin Cycle > 2.2 Regeneration', 'p3', '2.2 Regeneration'],
      ['2 Calvin Cycle > 2.2 Regeneration', 'p3', 'Most of the sugar is recycled to keep the cycle running.'],
    ]);
    assert.deepEqual(d.sections[3]!.location, { kind: 'page', page: 2 });
  });

  it('extracts Chinese set in a non-embedded CID font through the bundled CMaps, joining wrapped lines without spaces', async () => {
    const d = await ingestOk(fixture('pdf', 'photosynthesis-zh.pdf'));
    assert.equal(d.title, '光合作用笔记');
    assert.equal(d.lang, 'zh');
    assert.deepEqual(blockView(d), [
      ['第一章 光反应', 'p1', '第一章 光反应'],
      ['第一章 光反应', 'p1', '光反应发生在叶绿体的类囊体膜上，把光能转化为化学能。水被分解，释放出氧气。'],
      ['第二章 卡尔文循环', 'p2', '第二章 卡尔文循环'],
      ['第二章 卡尔文循环', 'p2', '卡尔文循环在叶绿体基质中进行，利用二氧化碳合成糖。'],
    ]);
    // The section's text opens with its heading line; its first sentence is the one after the title.
    assert.equal(d.sections[0]!.first_sentence, '光反应发生在叶绿体的类囊体膜上，把光能转化为化学能。');
  });

  it('reads a real nested outline (pdf.js nested_outline.pdf): 3 chapters × 2 subsections, one page each', async () => {
    const d = await ingestOk(fixture('pdf', 'nested_outline.pdf'));
    assert.deepEqual(outline(d), [
      ['1. Introduction', 1],
      ['1. Introduction > 1.1 Background', 2],
      ['1. Introduction > 1.2 Motivation', 2],
      ['2. Main Content', 1],
      ['2. Main Content > 2.1 First Topic', 2],
      ['2. Main Content > 2.2 Second Topic', 2],
      ['3. Conclusion', 1],
      ['3. Conclusion > 3.1 Summary', 2],
      ['3. Conclusion > 3.2 Future Work', 2],
    ]);
    assert.deepEqual(
      d.sections.map((s) => (s.location?.kind === 'page' ? s.location.page : null)),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    // The page's heading line "Background" is the outline's "1.1 Background" without its number: the
    // first sentence is the one after it.
    assert.deepEqual(
      d.sections.map((s) => s.first_sentence),
      d.sections.map((s) => `Content for ${s.title.replace(/^[\d.]+ /, '')}`),
    );
    assert.deepEqual(
      d.blocks.filter((b) => b.text.startsWith('Content for')).map((b) => [b.section_path, b.location.kind === 'page' && b.location.page]),
      [
        ['1. Introduction', 1],
        ['1. Introduction > 1.1 Background', 2],
        ['1. Introduction > 1.2 Motivation', 3],
        ['2. Main Content', 4],
        ['2. Main Content > 2.1 First Topic', 5],
        ['2. Main Content > 2.2 Second Topic', 6],
        ['3. Conclusion', 7],
        ['3. Conclusion > 3.1 Summary', 8],
        ['3. Conclusion > 3.2 Future Work', 9],
      ],
    );
  });

  it('a PDF without outline takes headings from type size; every block has a page and stays under the token limit', async () => {
    const d = await ingestOk(fixture('pdf', 'pdfjs_wikipedia.pdf'));
    // The infobox (its title in 13 pt) comes before the article's 25 pt title; the 18 pt "History and
    // application" is followed by another 18 pt line, so neither is taken for a heading.
    assert.deepEqual(outline(d), [
      ['(preamble)', 1],
      ['PDF.js', 1],
    ]);
    assert.ok(d.blocks.length >= 5);
    assert.ok(d.blocks.every((b) => b.location.kind === 'page' && b.location.page === 1 && b.token_count <= 512));
    assert.ok(d.blocks.some((b) => b.text.startsWith('PDF.js is a JavaScript library that renders Portable Document Format (PDF) files')));
  });

  it('drops running headers and footers printed on every page, keeps a heading that repeats', async () => {
    const d = await ingestOk(fixture('pdf', 'cell-lecture.pdf'));
    assert.equal(d.title, 'Lecture 3: The Cell Membrane');
    // No outline: the headings come from type size (18 pt, then 14 pt over 11 pt text, with room around).
    assert.deepEqual(outline(d), [
      ['The Cell Membrane', 1],
      ['The Cell Membrane > Review questions', 2],
      ['The Cell Membrane > Review questions (2)', 2],
    ]);
    assert.deepEqual(blockView(d), [
      ['The Cell Membrane', 'p1', 'The Cell Membrane'],
      ['The Cell Membrane', 'p1', 'Every cell is enclosed by a membrane made of a phospholipid bilayer with proteins embedded in it.'],
      // The line set larger at the text's spacing is no heading (its size still breaks the paragraph).
      ['The Cell Membrane', 'p2', 'Transport across the membrane is either passive, down a'],
      ['The Cell Membrane', 'p2', 'gradient, or active, using energy from ATP. Pumps move'],
      ['The Cell Membrane', 'p2', 'ions against their gradient.'],
      ['The Cell Membrane > Review questions', 'p3', 'Review questions'],
      ['The Cell Membrane > Review questions', 'p3', 'What makes the bilayer a barrier to ions?'],
      ['The Cell Membrane > Review questions (2)', 'p4', 'Review questions'],
      ['The Cell Membrane > Review questions (2)', 'p4', 'Why does active transport need ATP?'],
    ]);
    assert.deepEqual(
      d.sections.map((s) => s.first_sentence),
      ['Every cell is enclosed by a membrane made of a phospholipid bilayer with proteins embedded in it.', 'What makes the bilayer a barrier to ions?', 'Why does active transport need ATP?'],
      'the sentence after each title, from the next block when the heading is a block of its own',
    );
  });

  it('reads lecture slides: slide titles are sections, each bullet its own paragraph, the footer dropped, "Dr. A." no sentence end', async () => {
    const d = await ingestOk(fixture('pdf', 'respiration-slides.pdf'));
    assert.equal(d.title, 'Lecture 5');
    assert.deepEqual(outline(d), [
      ['Cellular Respiration', 1],
      ['Cellular Respiration > Overview', 2],
      ['Cellular Respiration > Glycolysis', 2],
      ['Cellular Respiration > Electron transport chain', 2],
    ]);
    // The footer ("BIO 101 Lecture 5 - 2") recurs on every slide: dropped. Items at one spacing stay apart.
    assert.deepEqual(blockView(d), [
      ['Cellular Respiration', 'p1', 'Cellular Respiration'],
      ['Cellular Respiration', 'p1', 'Lecture by Dr. A. Example, spring term'],
      ['Cellular Respiration > Overview', 'p2', 'Overview'],
      ['Cellular Respiration > Overview', 'p2', '• Glucose is oxidised to carbon dioxide'],
      ['Cellular Respiration > Overview', 'p2', '• Energy is stored as ATP'],
      ['Cellular Respiration > Overview', 'p2', '- About 30 ATP per glucose'],
      ['Cellular Respiration > Overview', 'p2', '• Three stages'],
      ['Cellular Respiration > Glycolysis', 'p3', 'Glycolysis'],
      ['Cellular Respiration > Glycolysis', 'p3', '• Happens in the cytoplasm'],
      ['Cellular Respiration > Glycolysis', 'p3', '- No oxygen needed'],
      ['Cellular Respiration > Glycolysis', 'p3', '- Yields 2 ATP and 2 NADH'],
      ['Cellular Respiration > Electron transport chain', 'p4', 'Electron transport chain'],
      ['Cellular Respiration > Electron transport chain', 'p4', '• Inner mitochondrial membrane'],
      ['Cellular Respiration > Electron transport chain', 'p4', '• Oxygen is the final electron acceptor'],
    ]);
    assert.deepEqual(
      d.sections.map((s) => s.first_sentence),
      ['Lecture by Dr. A. Example, spring term', 'Glucose is oxidised to carbon dioxide', 'Happens in the cytoplasm', 'Inner mitochondrial membrane'],
      'no bullet glyph, one item, and not "Lecture by Dr."',
    );
  });

  it('headings from type size are outline entries: checked on the PDFs that have an outline, with it hidden', async () => {
    const dir = tempDir();
    let found = 0;
    for (const name of ['photosynthesis-en.pdf', 'photosynthesis-zh.pdf', 'nested_outline.pdf']) {
      const withOutline = await ingestOk(fixture('pdf', name));
      const key = (t: string) => t.replace(/^[\d.]+\s*/u, '');
      const entries = new Set(withOutline.sections.map((s) => key(s.title)));
      // The same bytes with the catalog's /Outlines key renamed (same length, so the xref still holds).
      const hidden = path.join(dir, name);
      fs.writeFileSync(hidden, Buffer.from(fs.readFileSync(fixture('pdf', name)).toString('latin1').replaceAll('/Outlines', '/Outlinex'), 'latin1'));
      const bySize = await ingestOk(hidden);
      const titles = bySize.sections.map((s) => s.title).filter((t) => t !== '(preamble)' && t !== bySize.title);
      assert.ok(titles.length > 0, name);
      assert.deepEqual(titles.filter((t) => !entries.has(key(t))), [], `${name}: every heading found is an outline entry`);
      found += titles.length;
    }
    assert.equal(found, 15);
  });

  it('a long PDF keeps page order and page numbers (pdkids.pdf, 55 pages)', async () => {
    const d = await ingestOk(fixture('pdf', 'pdkids.pdf'));
    assert.equal(d.page_count, 55);
    const pages = d.blocks.map((b) => (b.location.kind === 'page' ? b.location.page : 0));
    assert.deepEqual(pages, [...pages].sort((a, b) => a - b));
    assert.equal(pages[0], 1);
    assert.ok(pages[pages.length - 1]! >= 50);
    assert.ok(d.blocks.every((b) => !/^\d+$/.test(b.text)), 'page numbers standing alone are dropped');
  });

  it('fails cleanly on a corrupt and on an encrypted PDF', async () => {
    const id = { doc_id: 'x', source_label: 's', aliases: [] };
    const broken = await ingestFile(fixture('bad', 'broken.pdf'), id, UNMERGED);
    assert.deepEqual(broken.ok ? null : [broken.failure.stage, broken.failure.code], ['parse', 'corrupt']);
    const enc = await ingestFile(fixture('bad', 'encrypted.pdf'), id, UNMERGED);
    assert.deepEqual(enc.ok ? null : [enc.failure.stage, enc.failure.code], ['parse', 'encrypted']);
    assert.match(enc.ok ? '' : enc.failure.message, /password/i);
  });

  it('joins wrapped lines: hyphenation repaired, no space between CJK characters, a space between words', () => {
    assert.equal(joinWrapped('thylakoid mem-', 'branes'), 'thylakoid membranes');
    assert.equal(joinWrapped('Jean-', 'Paul'), 'Jean-Paul');
    assert.equal(joinWrapped('转化为', '化学能'), '转化为化学能');
    assert.equal(joinWrapped('マ', 'クロ'), 'マクロ');
    assert.equal(joinWrapped('light', 'energy'), 'light energy');
  });
});
