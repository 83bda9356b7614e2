/**
 * The document view (issue 36 item 6) in headless Chromium: a Word paragraph, an e-book chapter position,
 * a web page's section and a slide's speaker notes, each rendered by the real parser from the fixture,
 * opened at the block a real ingestion located, highlighted and in view; hostile markup inert; a changed
 * file said so. Every case asserts no console error, page error, CSP violation or request off the origin.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { type Block } from '../../src/shared/document';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { parserFor } from '../../src/index/parse/registry';
import type { DocumentHostToView } from '../../src/shared/document-view-protocol';
import { fixture, ingestOk } from '../helpers';
import { DocumentHost } from './lib/document-host';
import { sharedBrowser } from './lib/scripted-host';


const SHOTS = path.join(__dirname, '..', '..', '.screenshots');
const CLEAN = { console: [], pageErrors: [], csp: [], dialogs: [], invalid: [] };

/** The `open` message the extension host posts for a block of a fixture (document-view.ts). */
async function openFor(name: string, pick: (b: Block) => boolean, ui_lang: 'en' | 'zh' = 'en'): Promise<{ m: Extract<DocumentHostToView, { type: 'open' }>; block: Block }> {
  const d = await ingestOk(fixture('formats', name), DEFAULT_INGEST_OPTIONS);
  const block = d.blocks.find(pick);
  assert.ok(block, `${name}: the block`);
  const l = block.location;
  assert.ok(l.kind === 'paragraphs' || l.kind === 'chapter' || l.kind === 'slide');
  // Through the registry entry, as render-file.ts renders it in the worker (reduced to the view's allowlist).
  const r = await parserFor(name)!.render!(fs.readFileSync(fixture('formats', name)), { path: name }, l);
  const part = l.kind === 'chapter' ? l.chapter : l.kind === 'slide' ? l.slide : 1;
  return { block, m: { type: 'open', name, title: d.title, html: r.html, parts: r.parts, target: { kind: l.kind, part, first: l.first, last: l.last, text: block.text, label: `¶ ${l.first}` }, changed: false, ui_lang } };
}

async function view(host: DocumentHost) {
  return host.page.evaluate(`(() => {
    const hl = [...document.querySelectorAll('.document .hl')];
    const box = hl[0]?.getBoundingClientRect();
    const bar = document.querySelector('.bar').getBoundingClientRect();
    return {
      title: document.querySelector('.doc-title').textContent,
      meta: document.querySelector('.meta').textContent,
      status: document.querySelector('.status').textContent,
      match: document.querySelector('.status').dataset.match,
      changed: document.querySelector('.changed').textContent,
      highlighted: hl.map((e) => e.textContent).join(' | '),
      tags: hl.map((e) => e.tagName.toLowerCase()),
      inView: box ? box.top >= bar.bottom - 1 && box.top < innerHeight : null,
    };
  })()`) as Promise<{ title: string; meta: string; status: string; match: string; changed: string; highlighted: string; tags: string[]; inView: boolean | null }>;
}

describe('document view (Word, e-books, web pages, slides)', () => {
  const browser = sharedBrowser();
  fs.mkdirSync(SHOTS, { recursive: true });

  it("opens a Word file at the cited paragraph (a table in the Chinese section), highlighted and scrolled into view", async () => {
    const { m } = await openFor('photosynthesis.docx', (b) => b.text.includes('| 阶段'));
    const host = await DocumentHost.open(browser(), { theme: 'light', viewport: { width: 700, height: 400 } });
    await host.post(m);
    assert.deepEqual(await host.nthShown(1), { type: 'shown', part: 1, first: m.target.first, last: m.target.last, match: 'exact' });
    const v = await view(host);
    assert.equal(v.title, 'Photosynthesis Study Guide');
    assert.deepEqual(v.tags, ['p', 'table'], 'the paragraph and the table the block holds');
    assert.match(v.highlighted, /光反应在类囊体薄膜上进行.*阶段场所产物/);
    assert.equal(v.match, 'exact');
    assert.match(v.status, /the cited text is highlighted/);
    assert.equal(v.inView, true, 'the cited table is scrolled below the bar, inside the view');
    await host.page.screenshot({ path: path.join(SHOTS, 'document-view-docx.png') });
    assert.deepEqual(host.clean(), CLEAN);
  });

  it('opens an e-book at its chapter and paragraph, says which chapter of how many, in Chinese', async () => {
    const { m } = await openFor('photosynthesis.epub', (b) => b.text.startsWith('光反应在'), 'zh');
    const host = await DocumentHost.open(browser(), { theme: 'dark' });
    await host.post(m);
    const shown = await host.nthShown(1);
    assert.equal(shown.match, 'exact');
    const v = await view(host);
    assert.match(v.meta, new RegExp(`^第 ${m.target.part} 章，共 ${m.parts} 章$`));
    assert.match(v.highlighted, /^光反应在类囊体薄膜上进行/);
    assert.match(v.status, /引用的文字已高亮/);
    await host.page.screenshot({ path: path.join(SHOTS, 'document-view-epub-zh.png') });
    assert.deepEqual(host.clean(), CLEAN);
  });

  it("opens a deck at the cited slide's speaker notes (merged with the slide's table into one block), and only that slide's elements are highlighted", async () => {
    const { m } = await openFor('respiration-slides.pptx', (b) => b.text.includes('almost all of the ATP'));
    const host = await DocumentHost.open(browser(), { theme: 'light', viewport: { width: 700, height: 300 } });
    await host.post(m);
    await host.nthShown(1);
    const v = await view(host);
    assert.deepEqual(v.tags, ['table', 'blockquote']);
    assert.match(v.highlighted, /^StagePlaceATP.* \| Speaker notes:Point out that almost all of the ATP/);
    assert.equal(v.inView, true);
    const slides = await host.page.evaluate(`[...document.querySelectorAll('.document .hl')].map((e) => e.closest('[data-docqa-part]').dataset.docqaPart)`);
    assert.deepEqual(slides, ['3', '3']);
    assert.deepEqual(host.clean(), CLEAN);
  });

  it("a saved page's hostile markup, rendered by the worker as the extension does, arrives as text structure only: nothing runs, loads or reports a violation", async () => {
    const page = `<html><head><title>Evil</title><script>alert(1)</script><link rel="stylesheet" href="https://evil.example/s.css"></head><body><article><h2 onclick="alert(2)">Osmosis</h2><p>Water moves <a href="command:workbench.action.terminal.new">toward</a> the side with more solute, across a membrane that lets water through but not the solute itself.<img src="https://evil.example/x.png" onerror="alert(3)"><script>alert(4)</script></p><style>body{background:url(https://evil.example/bg.png)}</style><svg><image href="https://evil.example/s.png"/></svg><iframe src="https://evil.example/"></iframe><p style="background:url(https://evil.example/p.png)" class="x">Diffusion <b>spreads</b> particles from high to low concentration until they are even everywhere.</p></article></body></html>`;
    const { html } = await parserFor('evil.html')!.render!(Buffer.from(page), { path: 'evil.html' }, { kind: 'paragraphs', first: 2, last: 2 });
    assert.doesNotMatch(html, /script|<img|<style|<svg|<iframe|href|onclick|onerror|style=|class="x"/);
    const host = await DocumentHost.open(browser());
    await host.post({ type: 'open', name: 'evil.html', title: '<img src=x onerror=alert(5)>', html, parts: 1, target: { kind: 'paragraphs', part: 1, first: 2, last: 2, text: 'Water moves toward the side with more solute', label: '¶ 2' }, changed: false, ui_lang: 'en' } satisfies DocumentHostToView);
    await host.nthShown(1);
    const v = await view(host);
    assert.equal(v.title, '<img src=x onerror=alert(5)>', 'the title is text');
    assert.match(v.highlighted, /^Water moves toward the side with more solute/);
    assert.deepEqual(host.clean(), CLEAN);
  });

  it('raw hostile HTML posted straight to the view (the host never sends it) still runs and loads nothing: the view sanitises again', async () => {
    const html = `<section data-docqa-part="1"><p data-docqa-el="1" onclick="alert(1)">Water <a href="command:x">moves</a>.<img src="https://evil.example/x.png" onerror="alert(2)"><script>alert(3)</script></p><iframe src="https://evil.example/"></iframe></section>`;
    const host = await DocumentHost.open(browser());
    await host.post({ type: 'open', name: 'raw.html', title: 'raw', html, parts: 1, target: { kind: 'paragraphs', part: 1, first: 1, last: 1, text: 'Water moves.', label: '¶ 1' }, changed: false, ui_lang: 'en' } satisfies DocumentHostToView);
    await host.nthShown(1);
    const left = await host.page.evaluate(`[...document.querySelectorAll('.document *')].flatMap((e) => [e.tagName.toLowerCase(), ...[...e.attributes].map((a) => a.name)]).filter((n) => /^(script|img|iframe|a|href|src|onclick|onerror)$/.test(n))`);
    assert.deepEqual(left, []);
    // What the sanitiser parses is refused by the CSP as it parses (reported, never run): no dialog, no error, no request.
    assert.deepEqual([host.problems.dialogs, host.problems.pageErrors, host.problems.csp.filter((c) => c.startsWith('request')), host.invalid], [[], [], [], []]);
  });

  it('a file changed since it was indexed: the text found elsewhere is highlighted and the view says so; invalid messages are dropped', async () => {
    const { m } = await openFor('cell-biology-course.html', (b) => b.text.startsWith('Glycolysis splits'));
    const host = await DocumentHost.open(browser());
    await host.post({ type: 'open', bogus: true });
    await host.post({ ...m, target: { ...m.target, first: 1, last: 1 }, changed: true });
    const shown = await host.nthShown(1);
    assert.equal(shown.match, 'moved');
    const v = await view(host);
    assert.match(v.highlighted, /^Glycolysis splits one glucose/);
    assert.match(v.changed, /changed since it was indexed/);
    await host.post({ ...m, target: { ...m.target, first: 99, last: 99, text: 'Text that is nowhere in the page at all' } });
    const gone = await host.nthShown(2);
    assert.deepEqual([gone.match, gone.first], ['none', 0]);
    assert.deepEqual(host.clean(), CLEAN);
  });
});
