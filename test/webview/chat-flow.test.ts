import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatEvent, KnowledgeBase } from '../../src/shared/chat-protocol';
import { CITE_A, conversation, doneTurn, result, successEvents } from '../fakes/chat-fixtures';
import { eventually } from '../e2e/lib/wait';
import { ScriptedHost, sharedBrowser } from './lib/scripted-host';

const KB: KnowledgeBase = { snapshot_id: 'snap-1', state: 'partial', documents: 40, failed: [{ title: 'a.pdf', path: '/d/a.pdf', reason: 'encrypted' }, { title: 'b.md', path: '/d/b.md', reason: 'empty' }] };
const init = (o: Partial<ChatEvent & { type: 'init' }> = {}): ChatEvent & { type: 'init' } => ({ type: 'init', ui_lang: 'en', conversation: null, conversations: [], knowledge_base: KB, ...o });
const noProblems = (h: ScriptedHost) => assert.deepEqual(h.clean(), { console: [], pageErrors: [], csp: [], dialogs: [], invalid: [] });

describe('chat webview: a full flow against a scripted host', () => {
  const browser = sharedBrowser();

  it('says ready before the host posts anything, asks, shows steps in words, streams, verifies chips, releases with a ledger', async () => {
    const host = await ScriptedHost.open(browser(), { init: init(), handlers: { ask: () => ({ conversation_id: 'c1', turn_id: 't1' }) } });
    const { page } = host;
    assert.equal(host.posted[0]?.type, 'ready');
    await page.fill('#question', 'What is osmosis?');
    await page.keyboard.press('Enter');
    await eventually('the ask request', () => host.requests('ask').length === 1, 10_000, 20);
    assert.deepEqual(host.requests('ask')[0]!.params, { conversation_id: null, question: 'What is osmosis?' });
    await page.getByRole('button', { name: 'Stop' }).waitFor();

    const events = successEvents();
    const at = (type: string) => events.findIndex((e) => e.type === type);
    const send = async (from: number, to: number) => {
      for (const event of events.slice(from, to)) await host.send({ type: 'ask_event', conversation_id: 'c1', turn_id: 't1', event });
    };
    await send(0, at('answer_delta'));
    const steps = page.locator('.step');
    await eventually('three steps', async () => (await steps.count()) === 3, 10_000, 20);
    assert.deepEqual(await steps.allInnerTexts(), ['Listing documents: 42 documents', 'Scanning all 42 documents for “osmosis”: 17 hits in 5 blocks', 'Reading § Osmosis of “Cell biology”: all 12 blocks']);
    // The step that returned blocks expands to them: title, section, first line.
    await page.locator('.step summary').first().click();
    await page.getByText('Osmosis is the movement of water.').waitFor();

    // Streamed text: refs are pending, never chips, until the harness has verified them.
    await send(at('answer_delta'), at('citations'));
    await page.locator('.answer strong', { hasText: 'water' }).waitFor();
    assert.equal(await page.locator('.chip').count(), 0);
    assert.equal(await page.locator('.cite.pending').count(), 3);
    await send(at('citations'), at('citations') + 1);
    await eventually('two chips', async () => (await page.locator('.chip').count()) === 2, 10_000, 20);
    assert.deepEqual(await page.locator('.chip').allInnerTexts(), ['1 · Cell biology · Osmosis', '2 · Cell biology · Diffusion']);
    assert.equal(await page.locator('.answer .cite.removed').innerText(), 'unverified source removed');

    await send(at('release'), events.length);
    await page.locator('.release-success').waitFor();
    assert.equal(await page.locator('.release-head strong').innerText(), 'SUCCESS');
    assert.equal(await page.locator('.completeness').innerText(), 'Scope covered: 42 of 42 documents scanned for “osmosis”; all 12 blocks of § Osmosis');
    assert.equal(await page.locator('.partial-kb').innerText(), '2 documents could not be indexed: a.pdf (encrypted), b.md (empty); this answer is based on the other 40.');
    assert.match(await page.locator('.removed-list').innerText(), /ghost#b9: no tool returned this block in this run/);
    const ledger = await page.locator('.ledger li').allInnerTexts();
    assert.deepEqual(ledger.slice(0, 6), ['chat tokens 5,321 of 400,000', 'largest context 3,100 of 100,000', 'tool calls 3 of 8', 'embedding tokens 12', 'model calls 4, retries 1', 'stopped: further searches added nothing new']);
    assert.match(ledger[6] ?? '', /^\d+\.\d s$/, 'the duration the view measured');
    assert.match(ledger[7] ?? '', /^prompt baseline-en 1 \(3f9a1c0d\)$/, 'which prompt bundle answered');
    assert.equal(await page.locator('.step.stop').textContent(), 'Stopped searching: further searches added nothing new');
    assert.equal(await page.locator('[role=status]').last().innerText(), 'Answer ready: SUCCESS');
    assert.equal(await page.locator('[role=log]').getAttribute('aria-live'), 'polite');

    await page.getByRole('button', { name: 'Open trace' }).click();
    await eventually('open_trace', () => host.requests('open_trace').length === 1, 10_000, 20);
    assert.deepEqual(host.requests('open_trace')[0]!.params, { run_id: 'run-1' });

    // Up in the empty box recalls the last question.
    await page.focus('#question');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.inputValue('#question'), 'What is osmosis?');
    noProblems(host);
    await host.page.close();
  });

  it('Stop ends the turn as CANCELLED, in words', async () => {
    const host = await ScriptedHost.open(browser(), { init: init(), handlers: { ask: () => ({ conversation_id: 'c1', turn_id: 't9' }) } });
    host.setHandler('stop', async ({ turn_id }) => {
      const r = result({ release: { status: 'CANCELLED', reason: 'CANCELLED', detail: 'Stopped by the user.', failure: null }, answer: null, citations: [], removed_citations: [], stop_reason: null });
      setTimeout(() => void host.send({ type: 'ask_event', conversation_id: 'c1', turn_id, event: { type: 'release', result: r } }), 10);
      return { stopped: true };
    });
    const { page } = host;
    await page.fill('#question', 'Long question');
    await page.getByRole('button', { name: 'Send' }).click();
    await host.send({ type: 'ask_event', conversation_id: 'c1', turn_id: 't9', event: successEvents()[2]! });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.release-cancelled').waitFor();
    assert.equal(await page.locator('.release-head strong').innerText(), 'CANCELLED · stopped by you; nothing more was searched');
    assert.deepEqual(host.requests('stop')[0]!.params, { turn_id: 't9' });
    await page.getByRole('button', { name: 'Send' }).waitFor();
    noProblems(host);
    await page.close();
  });

  it('a citation click posts open_citation for that block, and a missing file says so', async () => {
    const conv = conversation('c1', [doneTurn('t1', 'What is osmosis?')]);
    const host = await ScriptedHost.open(browser(), {
      init: init({ conversation: conv }),
      handlers: {
        open_citation: () => ({ opened: false, message: 'the file /notes/cell.md no longer exists' }),
        block_preview: (p) => ({ found: true, doc_title: 'Cell biology', section_path: 'Membranes > Osmosis', text: `Block ${p.block_id}: osmosis is the movement of water.`, file_exists: false }),
      },
    });
    const { page } = host;
    const chip = page.locator('.chip').first();
    await chip.hover();
    await page.locator('.preview-text', { hasText: 'Block b3: osmosis' }).waitFor();
    assert.equal(await page.locator('.preview-warn').innerText(), 'The file of this source no longer exists.');
    assert.deepEqual(host.requests('block_preview')[0]!.params, { doc_id: 'cell', block_id: 'b3', snapshot_id: 'snap-1' });
    // Keyboard: focus and Enter, like any button.
    await chip.focus();
    await page.keyboard.press('Enter');
    await eventually('open_citation', () => host.requests('open_citation').length === 1, 10_000, 20);
    assert.deepEqual(host.requests('open_citation')[0]!.params, { doc_id: CITE_A.doc_id, block_id: CITE_A.block_id, snapshot_id: 'snap-1' });
    await page.locator('.notice', { hasText: 'Could not open the source: the file /notes/cell.md no longer exists' }).waitFor();
    noProblems(host);
    await page.close();
  });

  it('restores history from init and open_conversation, in Chinese, and deletes from the list', async () => {
    const fallback = result({ release: { status: 'FALLBACK', reason: 'INSUFFICIENT_EVIDENCE', detail: null, failure: null }, answer: '未能形成完整回答。', citations: [], removed_citations: [] });
    const other = conversation('c2', [doneTurn('t5', '光合作用是什么？', fallback)], '光合作用');
    const host = await ScriptedHost.open(browser(), {
      init: init({ ui_lang: 'zh', conversation: conversation('c1', [doneTurn('t1', 'What is osmosis?')]), conversations: [{ id: 'c1', title: 'Osmosis', updated_at: '2025-01-01T10:05:00.000Z', turns: 1 }, { id: 'c2', title: '光合作用', updated_at: '2025-01-01T09:00:00.000Z', turns: 1 }] }),
      handlers: { open_conversation: ({ id }) => (id === 'c2' ? other : { error: { code: 'not_found', message: 'gone' } }) },
    });
    const { page } = host;
    await page.locator('.question', { hasText: 'What is osmosis?' }).waitFor();
    assert.equal(await page.locator('.chip').count(), 2, 'a restored answer shows its verified chips');
    await page.getByRole('button', { name: '历史' }).click();
    await page.getByRole('button', { name: /光合作用/ }).first().click();
    await page.locator('.question', { hasText: '光合作用是什么？' }).waitFor();
    assert.equal(await page.locator('.question', { hasText: 'What is osmosis?' }).count(), 0);
    assert.equal(await page.locator('.release-head strong').innerText(), 'FALLBACK · 证据不足');
    assert.equal(await page.locator('.checked').innerText(), '已核查: 在 42 篇中的 42 篇文档里逐字扫描“osmosis”：17 处命中; 读取了§ Osmosis的全部 12 个块');
    // The next question continues this conversation.
    host.setHandler('ask', () => ({ conversation_id: 'c2', turn_id: 't6' }));
    await page.fill('#question', '它的缺点呢？');
    await page.keyboard.press('Enter');
    await eventually('ask', () => host.requests('ask').length === 1, 10_000, 20);
    assert.deepEqual(host.requests('ask')[0]!.params, { conversation_id: 'c2', question: '它的缺点呢？' });
    await page.getByRole('button', { name: '历史' }).click();
    await page.getByRole('button', { name: '删除对话“Osmosis”' }).click();
    await eventually('delete', () => host.requests('delete_conversation').length === 1, 10_000, 20);
    await eventually('the list without it', async () => (await page.locator('.history li').count()) === 1, 10_000, 20);
    noProblems(host);
    await page.close();
  });
});
