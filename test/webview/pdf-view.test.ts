import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import { type Block } from '../../src/shared/document';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import type { PdfHostToView } from '../../src/shared/pdf-protocol';
import { fixture } from '../helpers';
import { CMAP_URL, FONT_URL, PdfHost } from './lib/pdf-host';
import { sharedBrowser } from './lib/scripted-host';

// The blocks come from the real ingestion of the fixture, parsed in this process as a worker would.
preparePdfThread();

const SHOTS = path.join(__dirname, '..', '..', '.screenshots');
const CLEAN = { console: [], pageErrors: [], csp: [], dialogs: [], invalid: [] };

async function blocksOf(name: string): Promise<Block[]> {
  const r = await ingestFile(fixture('pdf', name), { doc_id: 'd', source_label: 'fixtures', aliases: [] }, DEFAULT_INGEST_OPTIONS);
  assert.ok(r.ok, `${name} ingests`);
  return r.document.blocks;
}

const pageOf = (b: Block) => (b.location.kind === 'page' ? b.location.page : assert.fail('a PDF block has a page'));
const squash = (s: string) => s.replace(/\s+/g, '');

function open(name: string, page: number, highlight: string, ui_lang: 'en' | 'zh' = 'en'): Extract<PdfHostToView, { type: 'open' }> {
  return { type: 'open', name, data: fs.readFileSync(fixture('pdf', name)), page, highlight, ui_lang, cmap_url: CMAP_URL, standard_font_url: FONT_URL };
}

/** What the page shows: the drawn page's number, the toolbar, the status line, the highlighted spans' text. */
async function view(host: PdfHost) {
  return host.page.evaluate(`(() => {
    const hl = [...document.querySelectorAll('.textLayer .hl')];
    const first = hl[0]?.getBoundingClientRect();
    return {
      page: document.querySelector('.page').dataset.page,
      input: document.querySelector('.page-input').value,
      count: document.querySelector('.page-count').textContent,
      prevDisabled: document.querySelector('.nav.prev').disabled,
      nextDisabled: document.querySelector('.nav.next').disabled,
      status: document.querySelector('.status').textContent,
      match: document.querySelector('.status').dataset.match,
      highlighted: hl.map((e) => e.textContent).join(''),
      firstInView: first ? first.top >= 0 && first.bottom <= innerHeight : null,
      spans: document.querySelectorAll('.textLayer span').length,
    };
  })()`) as Promise<{ page: string; input: string; count: string; prevDisabled: boolean; nextDisabled: boolean; status: string; match: string; highlighted: string; firstInView: boolean | null; spans: number }>;
}

describe('PDF page view (pdf.js in the webview, under its CSP)', () => {
  const browser = sharedBrowser();
  fs.mkdirSync(SHOTS, { recursive: true });

  it("opens an English PDF at the cited block's page with the block's text highlighted and in view", async () => {
    const block = (await blocksOf('cell-lecture.pdf')).find((b) => b.text.startsWith('Transport across the membrane'));
    assert.ok(block, 'the page-2 block of the lecture');
    const host = await PdfHost.open(browser(), { theme: 'light' });
    await host.send(open('cell-lecture.pdf', pageOf(block), block.text));
    assert.deepEqual(await host.nthShown(1), { type: 'shown', page: 2, page_count: 4, match: 'exact' });
    const v = await view(host);
    assert.equal(v.page, '2');
    assert.equal(v.input, '2');
    assert.equal(v.count, 'of 4');
    assert.equal(v.match, 'exact');
    assert.match(v.status, /^Page 2: the cited text is highlighted\.$/);
    assert.ok(squash(v.highlighted).startsWith(squash('Transport across the membrane is either passive')), v.highlighted);
    assert.ok(squash(v.highlighted).includes(squash(block.text)), 'every word of the block is highlighted');
    assert.doesNotMatch(v.highlighted, /BIO 101|Downloaded/, 'the running header and footer are not part of the block');
    assert.equal(v.firstInView, true);
    // Read once (a second readback of a canvas is a console warning in Chromium).
    const ink = await host.page.evaluate(`(() => {
      const c = document.querySelector('.page canvas');
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4 * 7) if (px[i] < 128) n++;
      return n;
    })()`);
    assert.ok((ink as number) > 50, 'the canvas has the page drawn on it');
    await host.page.screenshot({ path: path.join(SHOTS, 'pdf-view-en.png'), fullPage: true });
    assert.deepEqual(host.clean(), CLEAN);
    await host.page.close();
  });

  it('shows a Chinese PDF set in a non-embedded CJK font (the shipped CMaps fetched), in Chinese', async () => {
    const block = (await blocksOf('photosynthesis-zh.pdf')).find((b) => b.text.includes('卡尔文循环在叶绿体基质中进行'));
    assert.ok(block);
    const host = await PdfHost.open(browser(), { theme: 'dark', lang: 'zh' });
    await host.send(open('photosynthesis-zh.pdf', pageOf(block), block.text, 'zh'));
    assert.deepEqual(await host.nthShown(1), { type: 'shown', page: 2, page_count: 2, match: 'exact' });
    const v = await view(host);
    assert.equal(v.status, '第 2 页：引用的文字已高亮。');
    assert.equal(v.count, '/ 共 2 页');
    assert.ok(squash(v.highlighted).includes(squash(block.text)), v.highlighted);
    assert.ok(host.fetched.includes(path.join('pdfjs', 'cmaps', 'UniGB-UCS2-H.bcmap')), `CMaps fetched: ${host.fetched.join(', ')}`);
    assert.equal(await host.page.evaluate('document.documentElement.lang'), 'zh-CN');
    assert.equal(await host.page.locator('.nav.next').getAttribute('aria-label'), '下一页');
    await host.page.screenshot({ path: path.join(SHOTS, 'pdf-view-zh-dark.png'), fullPage: true });
    assert.deepEqual(host.clean(), CLEAN);
    await host.page.close();
  });

  it('shows a PDF with embedded TrueType fonts (loaded from bytes, no font-src or CSP violation)', async () => {
    const block = (await blocksOf('pdfjs_wikipedia.pdf')).at(-1)!;
    const host = await PdfHost.open(browser(), { viewport: { width: 500, height: 700 } });
    await host.send(open('pdfjs_wikipedia.pdf', pageOf(block), block.text));
    assert.equal((await host.nthShown(1)).match, 'exact');
    const v = await view(host);
    assert.ok(squash(v.highlighted).includes(squash(block.text)));
    assert.equal(v.firstInView, true, 'the block near the end of a tall page is scrolled into view');
    assert.deepEqual(host.clean(), CLEAN);
    await host.page.close();
  });

  it("a block OCR read from a scanned page (no text layer) is highlighted over its lines, from the regions kept with its location, and scrolled into view", { timeout: 120_000 }, async () => {
    const r = await ingestFile(fixture('pdf', 'scanned-with-text.pdf'), { doc_id: 'd', source_label: 'fixtures', aliases: [] }, { ...DEFAULT_INGEST_OPTIONS, ocr: true });
    assert.ok(r.ok, 'the scan ingests with OCR on');
    const scanned = r.document.blocks.filter((b) => b.location.kind === 'page' && b.location.boxes?.length);
    const english = scanned.find((b) => /thylakoid/.test(b.text));
    const chinese = scanned.find((b) => /卡尔文/.test(b.text));
    assert.ok(english && chinese, `both scanned pages have blocks with regions: ${JSON.stringify(r.document.blocks.map((b) => b.location))}`);
    const boxesOf = (b: Block) => (b.location.kind === 'page' ? b.location.boxes : undefined);
    assert.equal(boxesOf(r.document.blocks.find((b) => pageOf(b) === 1)!), undefined, 'the page with a text layer keeps no regions');
    // A short window: the page is taller than the view, so "in view" means something.
    const host = await PdfHost.open(browser(), { viewport: { width: 560, height: 520 } });
    await host.send({ ...open('scanned-with-text.pdf', pageOf(english), english.text), boxes: boxesOf(english) });
    assert.deepEqual(await host.nthShown(1), { type: 'shown', page: 2, page_count: 3, match: 'exact' });
    /** The regions drawn, and how much of the page's ink (dark canvas pixels) lies under them. */
    const regions = () =>
      host.page.evaluate(`(() => {
        const c = document.querySelector('.page canvas');
        const cr = c.getBoundingClientRect();
        const marks = [...document.querySelectorAll('.regions .region')].map((e) => e.getBoundingClientRect());
        const sx = c.width / cr.width, sy = c.height / cr.height;
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0, covered = 0;
        const inside = marks.map(() => 0);
        for (let y = 0; y < c.height; y += 2) for (let x = 0; x < c.width; x += 2) {
          if (px[(y * c.width + x) * 4] >= 128) continue;
          ink++;
          const cx = cr.left + x / sx, cy = cr.top + y / sy;
          let hit = false;
          marks.forEach((m, i) => { if (cx >= m.left && cx <= m.right && cy >= m.top && cy <= m.bottom) { inside[i]++; hit = true; } });
          if (hit) covered++;
        }
        return {
          count: marks.length,
          ink, covered, inside,
          inView: marks.length > 0 && marks[0].top >= 0 && marks[0].bottom <= innerHeight && marks[0].left >= 0 && marks[0].right <= innerWidth,
          onPage: marks.every((m) => m.left >= cr.left - 1 && m.right <= cr.right + 1 && m.top >= cr.top - 1 && m.bottom <= cr.bottom + 1),
          status: document.querySelector('.status').textContent,
          textSpans: document.querySelectorAll('.textLayer span').length,
        };
      })()`) as Promise<{ count: number; ink: number; covered: number; inside: number[]; inView: boolean; onPage: boolean; status: string; textSpans: number }>;
    const en = await regions();
    assert.equal(en.textSpans, 0, 'the scanned page has no text layer');
    assert.equal(en.count, boxesOf(english)!.length, 'a region per line OCR read');
    assert.ok(en.ink > 500, 'the scan is drawn');
    // The block is all of the page's text: its regions cover the page's ink, and every one of them lies over words.
    assert.ok(en.covered / en.ink > 0.95, `${en.covered} of ${en.ink} dark pixels under the highlight`);
    assert.ok(en.inside.every((n) => n > 20), `ink under every region: ${en.inside.join(', ')}`);
    assert.equal(en.onPage, true);
    assert.equal(en.inView, true, 'the first highlighted line is on screen');
    assert.equal(en.status, 'Page 2: a scanned page; the cited lines, as OCR read them, are highlighted.');

    // The next citation into the same file (the host's goto): the Chinese scan, its regions; paging away drops them.
    await host.send({ type: 'goto', page: pageOf(chinese), highlight: chinese.text, boxes: boxesOf(chinese) });
    assert.deepEqual(await host.nthShown(2), { type: 'shown', page: 3, page_count: 3, match: 'exact' });
    const zh = await regions();
    assert.equal(zh.count, boxesOf(chinese)!.length);
    assert.ok(zh.covered / zh.ink > 0.95 && zh.inside.every((n) => n > 20), JSON.stringify(zh));
    assert.equal(zh.inView, true);
    await host.page.screenshot({ path: path.join(SHOTS, 'pdf-view-scan.png') });
    await host.page.keyboard.press('ArrowLeft');
    assert.equal((await host.nthShown(3)).page, 2);
    assert.equal((await regions()).count, 0, 'the cited page only');
    assert.deepEqual(host.clean(), CLEAN);
    await host.page.close();
  });

  it('pages with the buttons, the page field and the arrow keys; the highlight is on the cited page only; the host turns pages too', async () => {
    const blocks = await blocksOf('cell-lecture.pdf');
    const cited = blocks.find((b) => pageOf(b) === 3)!;
    const host = await PdfHost.open(browser(), { theme: 'high-contrast' });
    await host.send(open('cell-lecture.pdf', 3, cited.text));
    assert.equal((await host.nthShown(1)).match, 'exact');

    await host.page.locator('.nav.next').click();
    assert.deepEqual(await host.nthShown(2), { type: 'shown', page: 4, page_count: 4, match: null });
    let v = await view(host);
    assert.deepEqual([v.page, v.nextDisabled, v.prevDisabled, v.highlighted, v.status], ['4', true, false, '', 'Page 4 of 4.']);

    // Keyboard only: focus moves to the previous button with Tab order, Enter presses it.
    await host.page.locator('.nav.prev').focus();
    await host.page.keyboard.press('Enter');
    assert.equal((await host.nthShown(3)).page, 3);
    v = await view(host);
    assert.ok(squash(v.highlighted).includes(squash(cited.text)), 'back on the cited page, the block is highlighted again');

    await host.page.keyboard.press('ArrowLeft');
    assert.equal((await host.nthShown(4)).page, 2);
    await host.page.locator('.page-input').fill('1');
    await host.page.locator('.page-input').press('Enter');
    assert.equal((await host.nthShown(5)).page, 1);
    v = await view(host);
    assert.deepEqual([v.page, v.prevDisabled, v.input], ['1', true, '1']);

    // A second citation into the same file: the host sends goto, no bytes.
    const other = blocks.find((b) => pageOf(b) === 4)!;
    await host.send({ type: 'goto', page: 4, highlight: other.text });
    assert.deepEqual(await host.nthShown(6), { type: 'shown', page: 4, page_count: 4, match: 'exact' });
    // A page the PDF does not have: the last page, and the status says so.
    await host.send({ type: 'goto', page: 9, highlight: other.text });
    assert.equal((await host.nthShown(7)).page, 4);
    assert.match((await view(host)).status, /^The cited page 9 is not in this PDF \(4 pages\); showing page 4\./);
    // Text that is not on the page: nothing highlighted, and the status says so.
    await host.send({ type: 'goto', page: 1, highlight: 'Zymurgy quorum vexing' });
    assert.equal((await host.nthShown(8)).match, 'none');
    assert.deepEqual([(await view(host)).highlighted, (await view(host)).match], ['', 'none']);
    await host.page.screenshot({ path: path.join(SHOTS, 'pdf-view-high-contrast.png'), fullPage: true });
    assert.deepEqual(host.clean(), CLEAN);
    await host.page.close();
  });

  it('renders a PDF whose text and name are markup as inert text, and drops invalid messages', async () => {
    const block = (await blocksOf('hostile-text.pdf')).find((b) => b.text.includes('onerror'));
    assert.ok(block);
    const host = await PdfHost.open(browser());
    await host.post({ type: 'open', name: 'x', data: 'not bytes', page: 1, highlight: '', ui_lang: 'en', cmap_url: CMAP_URL, standard_font_url: FONT_URL });
    await host.post({ type: 'goto', page: 0, highlight: '' });
    await host.post('<img src=x onerror=alert(1)>');
    await host.send({ ...open('hostile-text.pdf', 1, block.text), name: '<img src=x onerror="alert(3)">.pdf' });
    assert.equal((await host.nthShown(1)).match, 'exact');
    const dom = (await host.page.evaluate(`(() => {
      const root = document.getElementById('root');
      return {
        elements: root.querySelectorAll('img, script, a, iframe, object, b').length,
        handlers: [...root.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
        text: root.querySelector('.textLayer').textContent,
        name: root.querySelector('.file-name').textContent,
      };
    })()`)) as { elements: number; handlers: number; text: string; name: string };
    assert.deepEqual({ elements: dom.elements, handlers: dom.handlers }, { elements: 0, handlers: 0 });
    assert.ok(dom.text.includes('<img src=x onerror="alert(1)"> and <script>alert(2)</script>'), dom.text);
    assert.equal(dom.name, '<img src=x onerror="alert(3)">.pdf');
    assert.ok((await view(host)).highlighted.includes('onerror'));
    await host.page.locator('.nav.next').click();
    assert.equal((await host.nthShown(2)).page, 2);
    assert.equal(host.shown().length, 2, 'the invalid messages did nothing');
    assert.deepEqual(host.clean(), CLEAN);
    await host.page.close();
  });

  it('says so when the bytes are not a PDF, and posts failed', async () => {
    const host = await PdfHost.open(browser());
    await host.send({ ...open('cell-lecture.pdf', 1, ''), data: Buffer.from('just some text, not a PDF at all\n'.repeat(20)) });
    await host.page.locator('.status[data-match="error"]').waitFor({ timeout: 20_000 });
    const failed = host.posted.find((m) => m.type === 'failed');
    assert.ok(failed && failed.type === 'failed' && /^This file is not a readable PDF: /.test(failed.message), JSON.stringify(host.posted));
    assert.deepEqual(host.clean(), CLEAN);
    await host.page.close();
  });
});
