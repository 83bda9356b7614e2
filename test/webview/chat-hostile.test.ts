import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Citation } from '../../src/shared/run-result';
import type { ChatEvent } from '../../src/shared/chat-protocol';
import { conversation, doneTurn, result } from '../fakes/chat-fixtures';
import { eventually } from '../e2e/lib/wait';
import { ScriptedHost, sharedBrowser } from './lib/scripted-host';
import type { ThemeName } from './lib/themes';

const EVIL = '<img src=x onerror="alert(1)"><script>alert(2)</script>\u202Egnp.exe';
const HOSTILE_CITE: Citation = { ref: 'evil#b1', doc_id: 'evil', block_id: 'b1', doc_title: EVIL, source_label: 'x', section_path: `A > ${EVIL}` };
const LONG = 'x'.repeat(200_000);
const ANSWER = [
  `Raw HTML: ${EVIL} and <a href="javascript:alert(3)">html link</a>`,
  '[command link](command:workbench.action.terminal.new) [vscode link](vscode://file/etc/passwd) [js link](javascript:alert(4)) [data link](data:text/html,<script>alert(5)</script>) <javascript:alert(6)>',
  '![remote image](https://attacker.example/pixel.png) [web link](https://example.com/docs)',
  `Bidi: \u202Eevil\u202C done. Source【来源:evil#b1】`,
  LONG,
  '```js\nconst a = "<script>alert(7)</script>";\n```',
].join('\n\n');
const init = (ui_lang: 'en' | 'zh' = 'en'): ChatEvent & { type: 'init' } => ({
  type: 'init',
  ui_lang,
  conversation: conversation('c1', [doneTurn('t1', `Question ${EVIL}`, result({ answer: ANSWER, citations: [HOSTILE_CITE] }))], EVIL),
  conversations: [{ id: 'c1', title: EVIL, updated_at: '2025-01-01T10:05:00.000Z', turns: 1 }],
  knowledge_base: { snapshot_id: 'snap-1', state: 'partial', documents: 40, failed: [{ title: EVIL, path: '/x', reason: '<b>encrypted</b>' }] },
});

describe('chat webview: hostile strings render inert', () => {
  const browser = sharedBrowser();

  it('answers, titles and previews with HTML, script, command/javascript/data links, a 200 KB line and bidi overrides', async () => {
    const host = await ScriptedHost.open(browser(), {
      init: init(),
      handlers: { block_preview: () => ({ found: true, doc_title: EVIL, section_path: EVIL, text: `${EVIL} <a href="command:x">x</a>`, file_exists: true }) },
    });
    const { page } = host;
    await page.locator('.answer').waitFor();
    const dom = await page.evaluate(`(() => {
      const root = document.getElementById('root');
      const q = (s) => root.querySelectorAll(s).length;
      return {
        img: q('img'), script: q('script'), iframe: q('iframe'), svg: q('svg'), inlineStyle: q('[style]'),
        handlers: [...root.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
        hrefs: [...root.querySelectorAll('[href]')].map((e) => e.getAttribute('href')),
        urls: [...root.querySelectorAll('[data-url]')].map((e) => e.getAttribute('data-url')),
        bidi: /[\\u202a-\\u202e\\u2066-\\u2069]/.test(root.textContent),
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        text: root.textContent,
      };
    })()`) as { img: number; script: number; iframe: number; svg: number; inlineStyle: number; handlers: number; hrefs: string[]; urls: string[]; bidi: boolean; overflow: number; text: string };
    assert.deepEqual({ ...dom, text: undefined }, { img: 0, script: 0, iframe: 0, svg: 0, inlineStyle: 0, handlers: 0, hrefs: [], urls: ['https://example.com/docs'], bidi: false, overflow: 0, text: undefined });
    // The hostile text is there, as text.
    assert.ok(dom.text.includes('<img src=x onerror="alert(1)">'), 'raw HTML shows as text');
    assert.ok(dom.text.includes('[command link](command:workbench.action.terminal.new)'), 'a command link stays literal text');
    assert.ok(dom.text.includes('‹U+202E›evil‹U+202C›'), 'bidi controls are shown, not obeyed');
    assert.ok(dom.text.includes('[image not loaded: remote image]'));
    assert.ok(dom.text.includes(LONG));
    // The chip's title and the preview are text too.
    const chip = page.locator('.chip');
    assert.match(await chip.innerText(), /^1 · <img src=x onerror="alert\(1\)"><script>alert\(2\)<\/script>‹U\+202E›gnp\.exe · /);
    await chip.hover();
    await page.locator('.preview-text').waitFor();
    assert.match(await page.locator('.preview-text').innerText(), /^<img src=x onerror="alert\(1\)">.*<a href="command:x">x<\/a>$/);
    assert.equal(await page.locator('#root img, #root script, #root a[href]').count(), 0);
    // Only the web link posts open_link; nothing is navigated.
    await page.locator('.ext-link').click();
    await eventually('open_link', () => host.requests('open_link').length === 1, 10_000, 20);
    assert.deepEqual(host.requests('open_link')[0]!.params, { url: 'https://example.com/docs' });
    assert.equal(page.url(), 'https://webview.test/index.html');
    assert.deepEqual(host.clean(), { console: [], pageErrors: [], csp: [], dialogs: [], invalid: [] });
    await page.close();
  });

  it('drops invalid host messages and reports them as log, without a console error', async () => {
    const host = await ScriptedHost.open(browser(), { init: init() });
    await host.post({ type: 'init', ui_lang: 'fr' });
    await host.post({ type: 'ask_event', conversation_id: 'c1', turn_id: 't1', event: { type: 'answer_delta', turn: 1, text: 7 } });
    await host.post('<img src=x onerror=alert(1)>');
    await eventually('three logs', () => host.logs().filter((l) => l.startsWith('dropped an invalid message')).length === 3, 10_000, 20);
    assert.equal(await host.page.locator('.question').count(), 1, 'the view is unchanged');
    assert.deepEqual(host.clean(), { console: [], pageErrors: [], csp: [], dialogs: [], invalid: [] });
    await host.page.close();
  });

  it('is legible in light, dark and high-contrast themes (screenshots in .screenshots/)', async () => {
    const dir = path.join(__dirname, '..', '..', '.screenshots');
    fs.mkdirSync(dir, { recursive: true });
    const sample = conversation('c1', [doneTurn('t1', 'What is osmosis?'), doneTurn('t2', 'And its drawbacks?', result({ release: { status: 'FAILED', reason: 'MODEL_AUTH', detail: 'The chat service refused the key (HTTP 401): set a valid key.', failure: null } }))]);
    for (const theme of ['light', 'dark', 'high-contrast'] as ThemeName[]) {
      const host = await ScriptedHost.open(browser(), { theme, init: { ...init(theme === 'dark' ? 'zh' : 'en'), conversation: sample } });
      const colors = await host.page.evaluate(`(() => { const s = getComputedStyle(document.body); return [s.color, s.backgroundColor, document.body.className]; })()`) as string[];
      assert.notEqual(colors[0], colors[1], `${theme}: text and background differ`);
      assert.match(colors[2]!, new RegExp(`vscode-${theme}`));
      const file = path.join(dir, `chat-${theme}.png`);
      await host.page.screenshot({ path: file, fullPage: true });
      assert.ok(fs.statSync(file).size > 1000);
      assert.deepEqual(host.clean(), { console: [], pageErrors: [], csp: [], dialogs: [], invalid: [] });
      await host.page.close();
    }
  });
});
