/**
 * The rendered formats (issue 36 items 1–4, 6): Word through mammoth, EPUB in spine order, a saved web
 * page's main content, a slide deck with speaker notes — sections, blocks and the locations a citation
 * opens, on fixtures made with pandoc and by hand (test/fixtures/README.md).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { type Document } from '../../src/shared/document';
import { renderedParser } from '../../src/index/parse/formats-bundle';
import { type DomElement, parseHtml } from '../../src/index/parse/html-dom';
import { ELEMENT_ATTR, PART_ATTR } from '../../src/index/parse/html-outline';
import type { DocumentParser } from '../../src/index/parse/parser';
import { PARSERS, parserFor } from '../../src/index/parse/registry';
import { matchElements } from '../../src/shared/document-match';
import { blockView, fixture, ingestOk, outline } from '../helpers';

/** The parsers themselves (src/index/parse/rendered/), as the formats bundle loads them. */
const bundle = { docxParser: renderedParser('docx'), epubParser: renderedParser('epub'), htmlParser: renderedParser('html'), pptxParser: renderedParser('pptx') };

const F = (name: string) => fixture('formats', name);

describe('Word documents (.docx, mammoth)', () => {
  it('reads Word heading styles as sections, tables as rows, lists with their numbers, footnotes under a heading of their own, the title from the properties', async () => {
    const d = await ingestOk(F('photosynthesis.docx'));
    assert.deepEqual([d.format, d.title, d.lang, d.encoding, d.page_count], ['docx', 'Photosynthesis Study Guide', 'mixed', null, null]);
    assert.deepEqual(outline(d), [
      ['(preamble)', 1],
      ['Overview', 1],
      ['Overview > Where it happens', 2],
      ['Light reactions', 1],
      ['Calvin cycle', 1],
      ['光合作用的中文笔记', 1],
      ['光合作用的中文笔记 > 光反应与暗反应', 2],
      ['Footnotes', 1],
    ]);
    const view = blockView(d);
    assert.deepEqual(view[4], ['Overview > Where it happens', '¶7-7', 'Chloroplasts hold the pigment chlorophyll in stacks of thylakoid membranes called grana. The fluid around the stacks is the stroma.']);
    assert.deepEqual(view[5], ['Overview > Where it happens', '¶8-8', '| Stage | Place | Products |\n| --- | --- | --- |\n| Light reactions | Thylakoid membrane | ATP, NADPH, O2 |\n| Calvin cycle | Stroma | G3P, then glucose |']);
    assert.deepEqual(view[8], ['Calvin cycle', '¶13-13', 'Rubisco fixes carbon dioxide onto ribulose bisphosphate. Each turn of the cycle uses three ATP and two NADPH for every carbon fixed.']);
    assert.deepEqual(view[9], ['Calvin cycle', '¶14-14', '1. Carbon fixation\n2. Reduction\n3. Regeneration of RuBP']);
    assert.deepEqual(view[12], ['光合作用的中文笔记 > 光反应与暗反应', '¶19-19', '| 阶段 | 场所 | 产物 |\n| --- | --- | --- |\n| 光反应 | 类囊体薄膜 | 氧气、ATP、NADPH |\n| 暗反应 | 叶绿体基质 | 糖类 |']);
    // The footnotes keep their numbers and lose mammoth's ↑ links back to the text.
    assert.deepEqual(view[13], ['Footnotes', '¶21-21', '1. Sunlight is the usual source, but any light of the right wavelengths works.\n2. The photosystems are numbered in the order they were discovered, not the order they act.\n3. 蓝藻没有叶绿体，但也能进行光合作用。']);
    assert.deepEqual(d.sections[2]!.location, { kind: 'paragraphs', first: 6, last: 6 });
  });
});

describe('EPUB e-books', () => {
  it('reads the chapters in spine order, their headings as sections, each block at its chapter and paragraph; title and author from the package', async () => {
    const d = await ingestOk(F('photosynthesis.epub'));
    assert.deepEqual([d.format, d.title, d.authors], ['epub', 'Photosynthesis Study Guide', ['Lin Wei']]);
    assert.deepEqual(outline(d), [
      ['Photosynthesis Study Guide', 1],
      ['Overview', 1],
      ['Overview > Where it happens', 2],
      ['Light reactions', 1],
      ['Calvin cycle', 1],
      ['光合作用的中文笔记', 1],
      ['光合作用的中文笔记 > 光反应与暗反应', 2],
    ]);
    const view = blockView(d);
    assert.deepEqual(view[1], ['Overview', 'c2¶2-2', 'Photosynthesis turns light energy into chemical energy stored in glucose.1 Plants, algae and cyanobacteria all do it, and almost every food chain on land starts with it.']);
    assert.deepEqual(view[9], ['Calvin cycle', 'c4¶2-2', 'Rubisco fixes carbon dioxide onto ribulose bisphosphate. Each turn of the cycle uses three ATP and two NADPH for every carbon fixed.']);
    // A chapter's footnotes stay in it, without their ↩ back-links.
    assert.deepEqual(view[14], ['光合作用的中文笔记 > 光反应与暗反应', 'c5¶6-6', '1. 蓝藻没有叶绿体，但也能进行光合作用。']);
    assert.deepEqual(d.sections[5]!.location, { kind: 'chapter', chapter: 5, first: 1, last: 1 });
  });
});

describe('saved web pages (.html, Readability)', () => {
  it('reads the main content only: no cookie banner, navigation, sidebar or footer; headings as sections, the page title', async () => {
    const d = await ingestOk(F('cell-biology-course.html'));
    assert.deepEqual([d.format, d.title, d.encoding], ['html', 'Cell Respiration — BIO 110 Course Pages', 'utf-8']);
    assert.deepEqual(outline(d), [
      ['(preamble)', 1],
      ['Glycolysis', 1],
      ['Krebs cycle', 1],
      ['Oxidative phosphorylation', 1],
      ['细胞呼吸（中文小结）', 1],
    ]);
    const all = d.blocks.map((b) => b.text).join('\n');
    for (const chrome of ['cookies', 'Accept all', 'Log in', 'In this course', 'Privacy', 'Terms of use', 'University logo', 'trackPage']) assert.ok(!all.includes(chrome), `${chrome} is not content`);
    assert.deepEqual(blockView(d)[3], ['Krebs cycle', '¶6-6', '| Stage | Place | ATP |\n| --- | --- | --- |\n| Glycolysis | Cytoplasm | 2 |\n| Krebs cycle | Mitochondrial matrix | 2 |\n| Oxidative phosphorylation | Inner membrane | about 28 |']);
  });

  it('decodes a page by the charset it declares (GBK), and reads a page Readability finds no article in from its body', async () => {
    const { htmlParser } = bundle;
    const page = '<html><head><meta charset="gbk"><title>细胞笔记</title></head><body><h1>细胞膜</h1><p>细胞膜由磷脂双分子层构成。</p></body></html>';
    const bytes = gbkBytes(page);
    const p = await htmlParser.parse(bytes, { path: 'note.html' });
    assert.equal(p.encoding, 'gbk');
    assert.equal(p.title, '细胞笔记');
    assert.deepEqual(p.units.map((u) => u.text), ['细胞膜由磷脂双分子层构成。']);
    assert.deepEqual(p.sections.map((s) => s.title), ['细胞膜']);
  });
});

describe('slide decks (.pptx)', () => {
  it('reads one section per slide titled by its title, its text, tables and speaker notes as blocks at that slide', async () => {
    const d = await ingestOk(F('respiration-slides.pptx'));
    assert.deepEqual([d.format, d.title], ['pptx', 'Cell Respiration Lecture']);
    assert.deepEqual(outline(d), [
      ['Cell Respiration Lecture', 1],
      ['Why cells respire', 1],
      ['The three stages', 1],
      ['有氧呼吸小结', 1],
      ['Questions', 1],
    ]);
    assert.deepEqual(blockView(d).slice(1, 5), [
      ['Why cells respire', 's2¶2-2', '- Glucose stores energy in its chemical bonds\n- Cells need that energy as ATP\n  - ATP is the cell’s energy currency'],
      ['Why cells respire', 's2¶3-3', 'Speaker notes:\nStart by asking the class where the energy in their breakfast goes. Stress that respiration is not breathing.'],
      ['The three stages', 's3¶2-2', '| Stage | Place | ATP |\n| --- | --- | --- |\n| Glycolysis | Cytoplasm | 2 |\n| Krebs cycle | Matrix | 2 |\n| Electron transport | Inner membrane | about 28 |'],
      ['The three stages', 's3¶3-3', 'Speaker notes:\nPoint out that almost all of the ATP comes from the last stage, which needs oxygen.'],
    ]);
    // Blocks never cross a slide, even tiny ones the blocker would otherwise merge.
    const merged = await ingestOk(F('respiration-slides.pptx'), DEFAULT_INGEST_OPTIONS);
    for (const b of merged.blocks) assert.equal(b.location.kind, 'slide');
    assert.equal(new Set(merged.blocks.map((b) => (b.location.kind === 'slide' ? b.location.slide : 0))).size, 5);
  });
});

/** The elements of one rendered part, as the document view reads them. */
function partElements(html: string, part: number): Array<{ n: number; text: string }> {
  const dom = parseHtml(`<body>${html}</body>`);
  const root = dom.querySelector(`[${PART_ATTR}="${part}"]`);
  assert.ok(root, `part ${part} is rendered`);
  const inPart = (el: DomElement) => {
    for (let p = el.parentNode as DomElement | null; p; p = p.parentNode as DomElement | null) if (p.getAttribute?.(PART_ATTR) !== null && p.getAttribute?.(PART_ATTR) !== undefined) return p === root;
    return false;
  };
  return Array.from(root.querySelectorAll(`[${ELEMENT_ATTR}]`))
    .filter(inPart)
    .map((e) => ({ n: Number(e.getAttribute(ELEMENT_ATTR)), text: e.textContent ?? '' }));
}

describe('rendering for the document view', () => {
  const cases: Array<[string, DocumentParser]> = [
    ['photosynthesis.docx', bundle.docxParser],
    ['photosynthesis.epub', bundle.epubParser],
    ['cell-biology-course.html', bundle.htmlParser],
    ['respiration-slides.pptx', bundle.pptxParser],
  ];
  for (const [name, parser] of cases) {
    it(`${name}: every block's location names rendered elements that hold its text (the view's exact match)`, async () => {
      const d: Document = await ingestOk(F(name), DEFAULT_INGEST_OPTIONS);
      const bytes = fs.readFileSync(F(name));
      const renders = new Map<number, string>();
      for (const b of d.blocks) {
        const l = b.location;
        assert.ok(l.kind === 'paragraphs' || l.kind === 'chapter' || l.kind === 'slide', `${l.kind} is a rendered location`);
        const part = l.kind === 'chapter' ? l.chapter : l.kind === 'slide' ? l.slide : 1;
        if (!renders.has(part)) renders.set(part, (await parser.render!(bytes, { path: name }, l)).html);
        const m = matchElements(partElements(renders.get(part)!, part), l.first, l.last, b.text);
        assert.deepEqual(m, { first: l.first, last: l.last, match: 'exact' }, `${name} ${b.block_id} at ${JSON.stringify(l)}`);
      }
    });
  }

  it('renders nothing a page could run or load: scripts, images, styles and link targets of the source do not reach the view unmarked', async () => {
    const r = await bundle.htmlParser.render!(fs.readFileSync(F('cell-biology-course.html')), { path: 'x.html' }, { kind: 'paragraphs', first: 1, last: 1 });
    assert.ok(!/<script|tracker\.js|logo\.png|course\.css/i.test(r.html), 'the page frame is not rendered');
  });
});

describe('the registry names each format once', () => {
  it('every parser file in rendered/ has its registry line, with the same name and extensions, and no line names a missing file', () => {
    const dir = path.join(__dirname, '..', '..', 'src', 'index', 'parse', 'rendered');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
    assert.deepEqual(files, ['docx', 'epub', 'html', 'pptx']);
    const lazy = PARSERS.filter((p) => p.render !== undefined).map((p) => p.format).sort();
    assert.deepEqual(lazy, files);
    for (const name of files) {
      const real = renderedParser(name);
      const entry = PARSERS.find((e) => e.format === name)!;
      assert.equal(real.format, name);
      assert.deepEqual(entry.extensions, real.extensions);
      for (const ext of real.extensions) assert.equal(parserFor(`/x/file${ext.toUpperCase()}`), entry);
    }
  });
});

/** GBK bytes of a string (Node has no GBK encoder; the test's text is in GB2312, one code table away). */
function gbkBytes(text: string): Uint8Array {
  const decoder = new TextDecoder('gbk');
  const table = new Map<string, number[]>();
  for (let hi = 0xb0; hi <= 0xf7; hi++) for (let lo = 0xa1; lo <= 0xfe; lo++) table.set(decoder.decode(new Uint8Array([hi, lo])), [hi, lo]);
  for (let lo = 0xa1; lo <= 0xfe; lo++) table.set(decoder.decode(new Uint8Array([0xa1, lo])), [0xa1, lo]);
  const out: number[] = [];
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x80) out.push(ch.charCodeAt(0));
    else out.push(...(table.get(ch) ?? assert.fail(`${ch} is not in GB2312`)));
  }
  return new Uint8Array(out);
}

describe('web pages that are not whole documents', () => {
  // Found by fuzzing: linkedom builds no document around a fragment, and Readability then threw.
  for (const [what, page, text] of [
    ['a fragment without <html>', '<h2>Osmosis</h2><p>Water moves across a membrane toward the side with more solute.</p>', 'Water moves across a membrane toward the side with more solute.'],
    ['plain text named .html', 'Diffusion spreads particles from high to low concentration.', 'Diffusion spreads particles from high to low concentration.'],
  ] as const) {
    it(`${what} is read as a body`, async () => {
      const p = await bundle.htmlParser.parse(Buffer.from(page), { path: 'x.html' });
      assert.deepEqual(p.units.map((u) => u.text), [text]);
    });
  }

  it('a page cut to "<" is read as its text, not a crash', async () => {
    const p = await bundle.htmlParser.parse(Buffer.from('<'), { path: 'x.html' });
    assert.deepEqual(p.units.map((u) => u.text), ['<']);
  });
});
