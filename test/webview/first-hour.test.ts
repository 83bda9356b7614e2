import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ScopeTargets } from '../../src/shared/question-scope';
import type { ChatEvent, KnowledgeBase } from '../../src/shared/chat-protocol';
import { conversation, doneTurn, outcome, result, scope } from '../fakes/chat-fixtures';
import { eventually } from '../e2e/lib/wait';
import { ScriptedHost, sharedBrowser } from './lib/scripted-host';
import type { ThemeName } from './lib/themes';

const KB: KnowledgeBase = { snapshot_id: 'snap-1', state: 'ready', documents: 3, failed: [] };
const init = (o: Partial<ChatEvent & { type: 'init' }> = {}): ChatEvent & { type: 'init' } => ({ type: 'init', ui_lang: 'en', conversation: null, conversations: [], knowledge_base: KB, setup: { chat_ready: true, sources: 1 }, ...o });
const noProblems = (h: ScriptedHost) => assert.deepEqual(h.clean(), { console: [], pageErrors: [], csp: [], dialogs: [], invalid: [] });
const TARGETS: ScopeTargets = {
  snapshot_id: 'snap-1',
  sources: [{ label: 'notes', documents: 3 }],
  documents: [
    { doc_id: 'd1', title: 'Cell Biology Notes', source_label: 'notes', file: 'cell-notes.md' },
    { doc_id: 'd2', title: '中国历史笔记', source_label: 'notes', file: 'zh-history.md' },
    { doc_id: 'd3', title: 'Study plan', source_label: 'notes', file: 'study-plan.txt' },
  ],
};
const SHOTS = path.join(__dirname, '..', '..', '.screenshots');

describe('chat webview: the first hour (guidance, starting questions, @ scope, keeping answers)', () => {
  const browser = sharedBrowser();

  it('an empty chat says the next step with its button: a chat model, then a folder; the buttons run only their command', async () => {
    const host = await ScriptedHost.open(browser(), { init: init({ knowledge_base: { snapshot_id: null, state: 'none', documents: 0, failed: [] }, setup: { chat_ready: false, sources: 0 } }) });
    const { page } = host;
    await page.getByText('DocQA needs a chat model to answer').waitFor();
    await page.getByRole('button', { name: 'Set Chat API Key' }).click();
    await page.getByRole('button', { name: 'Get Started' }).click();
    await eventually('two commands', () => host.requests('run_command').length === 2, 10_000, 20);
    assert.deepEqual(host.requests('run_command').map((r) => r.params.command), ['docqa.setChatKey', 'docqa.openWalkthrough']);
    await host.send({ type: 'setup', setup: { chat_ready: true, sources: 0 } });
    await page.getByText('Add a folder of notes').waitFor();
    await page.getByRole('button', { name: 'Add Folder' }).click();
    await eventually('add folder', () => host.requests('run_command').length === 3, 10_000, 20);
    assert.equal(host.requests('run_command')[2]!.params.command, 'docqa.addFolder');
    assert.equal(host.requests('starting_questions').length, 0, 'no questions are asked for without a knowledge base');
    noProblems(host);
    await page.close();
  });

  it('over a ready knowledge base it offers questions drawn from it, in the UI language; one click asks it about its document', async () => {
    const host = await ScriptedHost.open(browser(), {
      init: init({ ui_lang: 'zh' }),
      handlers: {
        starting_questions: ({ lang }) => ({ snapshot_id: 'snap-1', questions: lang === 'zh' ? [{ question: '《Cell Biology Notes》中关于“Cells”讲了什么？', doc_id: 'd1', doc_title: 'Cell Biology Notes', section: 'Cells' }] : [] }),
        ask: () => ({ conversation_id: 'c1', turn_id: 't1' }),
      },
    });
    const { page } = host;
    const q = page.locator('.starting-question');
    await q.waitFor();
    assert.deepEqual(host.requests('starting_questions').map((r) => r.params), [{ lang: 'zh' }]);
    assert.equal(await page.locator('.start-head').innerText(), '试试这些从你的文档中提出的问题：');
    await q.click();
    await eventually('the ask', () => host.requests('ask').length === 1, 10_000, 20);
    assert.deepEqual(host.requests('ask')[0]!.params, { conversation_id: null, question: '《Cell Biology Notes》中关于“Cells”讲了什么？', scope: { sources: [], doc_ids: ['d1'] } });
    noProblems(host);
    await page.close();
  });

  it('@ offers sources and documents, fuzzy and keyboard-first; the picked one is a chip that scopes the question', async () => {
    const host = await ScriptedHost.open(browser(), { init: init(), handlers: { scope_targets: () => TARGETS, ask: () => ({ conversation_id: 'c1', turn_id: 't1' }) } });
    const { page } = host;
    await page.click('#question');
    await page.keyboard.type('How is the slide prepared? @');
    const list = page.locator('#mention-list');
    await list.waitFor();
    await eventually('targets', async () => (await page.locator('.mention').count()) === 4, 10_000, 20);
    assert.deepEqual(await page.locator('.mention .mention-label').allInnerTexts(), ['notes', 'Cell Biology Notes', '中国历史笔记', 'Study plan']);
    assert.equal(await page.locator('#question').getAttribute('aria-expanded'), 'true');
    // Fuzzy: "cbn" finds Cell Biology Notes first; ↓ and ↑ move, Enter picks.
    await page.keyboard.type('cbn');
    await eventually('one match', async () => (await page.locator('.mention .mention-label').allInnerTexts())[0] === 'Cell Biology Notes', 10_000, 20);
    await page.keyboard.press('Enter');
    await page.locator('.scope-chip', { hasText: 'Cell Biology Notes' }).waitFor();
    assert.equal(await list.count(), 0, 'the list closes');
    assert.equal(await page.inputValue('#question'), 'How is the slide prepared? ', 'the @mention text leaves the question');
    // A second mention: Escape closes without picking; Tab picks the highlighted one.
    await page.keyboard.type('@st');
    await list.waitFor();
    await page.keyboard.press('Escape');
    assert.equal(await list.count(), 0);
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('@');
    await list.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator('#question').getAttribute('aria-activedescendant'), 'mention-2');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Tab');
    await page.locator('.scope-chip', { hasText: '中国历史笔记' }).waitFor();
    await page.keyboard.press('Enter');
    await eventually('the ask', () => host.requests('ask').length === 1, 10_000, 20);
    assert.deepEqual(host.requests('ask')[0]!.params, { conversation_id: null, question: 'How is the slide prepared?', scope: { sources: [], doc_ids: ['d1', 'd2'] } });
    assert.equal(host.requests('scope_targets').length, 1, 'the targets are read once per snapshot');
    // The scope stays for the next question until its chips are removed.
    await page.getByRole('button', { name: 'Remove “中国历史笔记” from the scope' }).click();
    assert.deepEqual(await page.locator('.scope-chip').allInnerTexts(), ['Cell Biology Notes']);
    noProblems(host);
    await page.close();
  });

  for (const theme of ['light', 'dark'] as ThemeName[]) {
    it(`a scoped answer says which scope was searched (steps, ledger, completeness), and keeps: copy, save as note, export (${theme})`, async () => {
      const scoped = { documents: 1, of: 1 };
      const s = scope('scan_term', 'slide', [], ['Cell Biology Notes'], { count: 1, of: scoped.of, all: true, titles: ['Cell Biology Notes'], scoped: true });
      const r = result({ progress: { ...result().progress, facts: [{ tool_call_id: 'c1', scope: s, outcome: outcome(s, { hits: 3, hit_blocks: 2, hit_documents: 1 }) }] } });
      const turn = { ...doneTurn('t1', 'How is the slide prepared?', r), steps: [{ tool_call_id: 'c1', tool: 'scan_term', scope: s, outcome: r.progress.facts[0]!.outcome, blocks: [] }], scope: { documents: [{ doc_id: 'd1', title: 'Cell Biology Notes' }], sources: [], of: 3 } };
      const host = await ScriptedHost.open(browser(), { theme, init: init({ conversation: conversation('c1', [turn], 'Slides') }), handlers: { save_note: () => ({ saved: true, file: '/notes/x.md' }) } });
      const { page } = host;
      await page.locator('.turn.done').waitFor();
      assert.match(await page.locator('.ledger li').first().innerText(), /^searched only “Cell Biology Notes” \(1 of 3\)$/);
      assert.equal(await page.locator('.completeness').innerText(), 'Scope covered: 1 of the 1 document in the question’s scope scanned for “slide”');
      await page.locator('details.steps > summary').click();
      assert.equal(await page.locator('.step').first().innerText(), 'Scanning “Cell Biology Notes” for “slide”: 3 hits in 2 blocks');
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `chat-scoped-answer-${theme}.png`) });
      await page.getByRole('button', { name: 'Copy as Markdown' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      await page.getByRole('button', { name: 'Save as note' }).click();
      await page.getByRole('button', { name: 'Export' }).click();
      await eventually('three requests', () => host.requests('copy_markdown').length === 1 && host.requests('save_note').length === 2, 10_000, 20);
      assert.deepEqual(host.requests('copy_markdown')[0]!.params, { conversation_id: 'c1', turn_id: 't1' });
      assert.deepEqual(host.requests('save_note').map((x) => x.params), [{ conversation_id: 'c1', turn_id: 't1' }, { conversation_id: 'c1', turn_id: null }]);
      await eventually('announced', async () => (await page.locator('[role=status]').last().innerText()) === 'The note is saved.', 10_000, 20);
      noProblems(host);
      await page.close();
    });
  }
});
