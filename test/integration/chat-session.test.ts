import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { workspaceKey } from '../../src/app/conversations/workspace-key';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, NULL_LOGGER, fixedKeys } from '../../src/app/settings';
import { type ChatEvent, type ChatHostToWebview, ChatHostToWebview as HostMessage, type ChatReply } from '../../src/shared/chat-protocol';
import { ChatSession, type ChatPort, type OpenTarget } from '../../src/vscode/chat-session';
import { eventually } from '../e2e/lib/wait';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';

/** A host port that records what the session posts and opens; everything else is the real app. */
function recordingPort(workspace: string) {
  const posted: ChatHostToWebview[] = [];
  const opened: OpenTarget[] = [];
  const logs: string[] = [];
  let current: string | null = null;
  const kept = { copied: [] as string[], folder: null as string | null, saved: [] as Array<{ file: string; folder: string }>, commands: [] as string[], answered: 0 };
  const port: ChatPort = {
    post: (m) => posted.push(HostMessage.parse(m)),
    uiLang: () => 'en',
    workspace: () => workspace,
    currentConversation: () => current,
    rememberConversation: (id) => {
      current = id;
    },
    openLocation: async (t) => void opened.push(t),
    openLink: async () => false,
    openTrace: async () => undefined,
    testConnection: async () => ({ ok: true, message: 'both fine' }),
    building: () => false,
    setup: async () => ({ chat_ready: true, sources: 1 }),
    copy: async (text) => void kept.copied.push(text),
    pickNoteFolder: async () => kept.folder,
    noteSaved: (file, folder) => void kept.saved.push({ file, folder }),
    runCommand: async (c) => void kept.commands.push(c),
    answered: () => void kept.answered++,
    log: { ...NULL_LOGGER, warn: (m) => logs.push(m) },
    t: (m, ...a) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])),
  };
  return { port, posted, opened, logs, kept };
}

const reply = (posted: ChatHostToWebview[], id: string) => posted.find((m): m is ChatReply => m.type === 'reply' && m.id === id);
const events = (posted: ChatHostToWebview[]) => posted.filter((m): m is Extract<ChatEvent, { type: 'ask_event' }> => m.type === 'ask_event');

describe('the chat view host: a ChatSession over the real application layer and the chat protocol', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer().start();
  });
  after(() => server.close());

  async function setup() {
    const notes = tempDir('docqa-chat-notes-');
    fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(notes, 'cells.md'));
    const app = new DocQaApp({ dataDir: path.join(tempDir('docqa-chat-'), 'data'), settings: AppSettings.parse({ chat: { base_url: server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 } }), keys: fixedKeys('sk-test', undefined), appVersion: 'test' });
    await app.addSources([notes]);
    await (await app.startBuild({ confirmEgress: async () => true })).done;
    return { app, notes, ws: workspaceKey([notes]) };
  }

  it('posts nothing before ready; asks: the reply names the turn before its events, which end in the release; the stored turn follows; a citation opens at its lines', async () => {
    const { app, notes, ws } = await setup();
    const { port, posted, opened, logs } = recordingPort(ws);
    const session = new ChatSession(app, port);
    session.receive({ type: 'request', id: 'early', method: 'list_conversations', params: {} });
    session.receive({ type: 'ready' });
    await eventually('init', () => posted.some((m) => m.type === 'init'), 5000, 20);
    const init = posted.find((m) => m.type === 'init') as Extract<ChatEvent, { type: 'init' }>;
    assert.equal(posted.indexOf(init), 0, 'init is the first message (the early request is answered after ready)');
    assert.deepEqual([init.ui_lang, init.conversation, init.knowledge_base.state, init.knowledge_base.documents], ['en', null, 'keyword_only', 1]);

    server.scriptChat('Thought: search.\nAction: search_blocks[{"input": {"query": "cell membrane"}}]', 'Thought: done.\nAction: Finish[It controls what enters the cell【来源:{{ref:1}}】.]');
    session.receive({ type: 'request', id: 'q1', method: 'ask', params: { conversation_id: null, question: 'What does the cell membrane do?' } });
    await eventually('the release', () => events(posted).some((e) => e.event.type === 'release'), 15_000, 20);
    const r = reply(posted, 'q1');
    assert.ok(r?.ok, JSON.stringify(r));
    const ids = r.value as { conversation_id: string; turn_id: string };
    assert.ok(posted.indexOf(r) < posted.indexOf(events(posted)[0]!), 'the reply comes before the first event of its turn');
    assert.ok(events(posted).every((e) => e.conversation_id === ids.conversation_id && e.turn_id === ids.turn_id));
    assert.deepEqual(
      [...new Set(events(posted).map((e) => e.event.type))].filter((t) => ['run_started', 'tool_requested', 'tool_result', 'citations', 'release'].includes(t)),
      ['run_started', 'tool_requested', 'tool_result', 'citations', 'release'],
    );
    const release = events(posted).find((e) => e.event.type === 'release')!.event as Extract<ChatEvent, { type: 'ask_event' }>['event'] & { type: 'release' };
    assert.equal(release.result.release.status, 'SUCCESS');
    await eventually('the stored conversation', () => posted.some((m) => m.type === 'conversation_changed'), 5000, 20);
    const changed = posted.find((m) => m.type === 'conversation_changed') as Extract<ChatEvent, { type: 'conversation_changed' }>;
    assert.deepEqual([changed.conversation.turns[0]!.state, changed.conversation.turns[0]!.run_id !== null], ['done', true]);

    const cited = release.result.citations[0]!;
    session.receive({ type: 'request', id: 'c1', method: 'open_citation', params: { doc_id: cited.doc_id, block_id: cited.block_id } });
    session.receive({ type: 'request', id: 'p1', method: 'block_preview', params: { doc_id: cited.doc_id, block_id: cited.block_id } });
    await eventually('both replies', () => Boolean(reply(posted, 'c1') && reply(posted, 'p1')), 5000, 20);
    assert.deepEqual(reply(posted, 'c1'), { type: 'reply', id: 'c1', ok: true, value: { opened: true } });
    assert.equal(opened.length, 1);
    assert.equal(opened[0]!.path, fs.realpathSync(path.join(notes, 'cells.md')));
    assert.equal(opened[0]!.location.kind, 'lines');
    const lines = fs.readFileSync(path.join(notes, 'cells.md'), 'utf8').split('\n');
    const at = opened[0]!.location as { line_start: number; line_end: number };
    assert.ok(lines.slice(at.line_start - 1, at.line_end).join('\n').includes(opened[0]!.text.split(/\s+/).slice(0, 3).join(' ')), 'the lines hold the block');
    const preview = reply(posted, 'p1') as Extract<ChatReply, { ok: true }>;
    assert.deepEqual([(preview.value as { found: boolean }).found, (preview.value as { file_exists: boolean }).file_exists], [true, true]);

    // A file removed since: the chip says so instead of failing silently.
    fs.rmSync(path.join(notes, 'cells.md'));
    session.receive({ type: 'request', id: 'c2', method: 'open_citation', params: { doc_id: cited.doc_id, block_id: cited.block_id } });
    await eventually('the reply', () => Boolean(reply(posted, 'c2')), 5000, 20);
    assert.deepEqual(reply(posted, 'c2'), { type: 'reply', id: 'c2', ok: true, value: { opened: false, message: `The cited file ${opened[0]!.path} no longer exists.` } });

    // Invalid messages are dropped and logged; nothing is posted for them.
    const before = posted.length;
    session.receive({ type: 'request', id: 'x', method: 'ask', params: { question: 42 } });
    session.receive({ type: 'request', id: 'y', method: 'open_link', params: { url: 'command:workbench.action.terminal.new' } });
    assert.equal(posted.length, before);
    assert.equal(logs.length, 2);

    // A reload: the view says ready again and gets the conversation it showed.
    session.receive({ type: 'ready' });
    await eventually('a second init', () => posted.filter((m) => m.type === 'init').length === 2, 5000, 20);
    const again = posted.filter((m): m is Extract<ChatEvent, { type: 'init' }> => m.type === 'init')[1]!;
    assert.equal(again.conversation?.id, ids.conversation_id);
    assert.equal(again.conversations.length, 1);
    session.dispose();
    await app.close();
  });

  it('the first hour over the protocol: setup in init, @ targets, starting questions, a scoped ask, copy and save as note, allowed commands', async () => {
    const { app, ws } = await setup();
    const { port, posted, kept } = recordingPort(ws);
    const session = new ChatSession(app, port);
    session.receive({ type: 'ready' });
    await eventually('init', () => posted.some((m) => m.type === 'init'), 5000, 20);
    const init = posted.find((m) => m.type === 'init') as Extract<ChatEvent, { type: 'init' }>;
    assert.deepEqual(init.setup, { chat_ready: true, sources: 1 });
    const ask = async (id: string, method: string, params: unknown) => {
      session.receive({ type: 'request', id, method, params });
      await eventually(`the reply to ${id}`, () => Boolean(reply(posted, id)), 15_000, 20);
      const r = reply(posted, id)!;
      assert.ok(r.ok, JSON.stringify(r));
      return r.value as never;
    };
    const targets: { documents: Array<{ doc_id: string; title: string }>; sources: Array<{ label: string }> } = await ask('t', 'scope_targets', {});
    assert.deepEqual(targets.documents.map((d) => d.title), ['Cell Biology Notes']);
    const starting: { questions: Array<{ question: string; doc_id: string }> } = await ask('s', 'starting_questions', { lang: 'zh' });
    assert.equal(starting.questions.length, 1);
    assert.match(starting.questions[0]!.question, /《Cell Biology Notes》/);

    server.scriptChat('Thought: search.\nAction: search_blocks[{"input": {"query": "slide"}}]', 'Thought: done.\nAction: Finish[Use water【来源:{{ref:1}}】.]');
    const ids: { conversation_id: string; turn_id: string } = await ask('q', 'ask', { conversation_id: null, question: 'How is the slide prepared?', scope: { sources: [], doc_ids: [targets.documents[0]!.doc_id] } });
    await eventually('the release', () => events(posted).some((e) => e.event.type === 'release'), 15_000, 20);
    const started = events(posted).find((e) => e.event.type === 'run_started')!.event as { scope?: { documents: unknown[] } };
    assert.equal(started.scope?.documents.length, 1);
    assert.equal(kept.answered, 1, 'the walkthrough hears that a question was answered');

    assert.deepEqual(await ask('c', 'copy_markdown', { conversation_id: ids.conversation_id, turn_id: ids.turn_id }), { copied: true });
    assert.match(kept.copied[0]!, /^# How is the slide prepared\?\n/);
    assert.match(kept.copied[0]!, /\[1\]\(file:\/\/.+cells\.md#L\d+/);
    // Cancelled folder pick: nothing written, said so.
    const none: { saved: boolean; message?: string } = await ask('n0', 'save_note', { conversation_id: ids.conversation_id, turn_id: ids.turn_id });
    assert.deepEqual(none, { saved: false, message: 'No folder was picked; nothing was saved.' });
    kept.folder = tempDir('docqa-chat-kept-');
    const saved: { saved: boolean; file: string } = await ask('n1', 'save_note', { conversation_id: ids.conversation_id, turn_id: null });
    assert.equal(saved.saved, true);
    assert.deepEqual(kept.saved, [{ file: saved.file, folder: kept.folder }]);
    assert.match(fs.readFileSync(saved.file, 'utf8'), /^# How is the slide prepared\?\n\n## How is the slide prepared\?/);

    await ask('r', 'run_command', { command: 'docqa.addFolder' });
    assert.deepEqual(kept.commands, ['docqa.addFolder']);
    // Any other command is refused by the protocol: dropped, never run.
    session.receive({ type: 'request', id: 'x', method: 'run_command', params: { command: 'workbench.action.terminal.new' } });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(reply(posted, 'x'), undefined);
    assert.deepEqual(kept.commands, ['docqa.addFolder']);
    session.dispose();
  });

  it('stop ends the turn CANCELLED; a question refused before it is recorded is the reply error; a broken-off turn is a turn_error', async () => {
    const { app, ws } = await setup();
    const { port, posted } = recordingPort(ws);
    const session = new ChatSession(app, port);
    session.receive({ type: 'ready' });
    await eventually('init', () => posted.some((m) => m.type === 'init'), 5000, 20);

    // The model hangs: only Stop ends the turn.
    server.inject('/v1/chat/completions', { kind: 'hang' });
    session.receive({ type: 'request', id: 'q', method: 'ask', params: { conversation_id: null, question: 'What is a cell?' } });
    await eventually('the reply', () => Boolean(reply(posted, 'q')), 5000, 20);
    const { turn_id } = (reply(posted, 'q') as Extract<ChatReply, { ok: true }>).value as { turn_id: string };
    session.receive({ type: 'request', id: 's', method: 'stop', params: { turn_id } });
    await eventually('the release', () => events(posted).some((e) => e.event.type === 'release'), 10_000, 20);
    assert.deepEqual(reply(posted, 's'), { type: 'reply', id: 's', ok: true, value: { stopped: true } });
    const release = events(posted).find((e) => e.event.type === 'release')!.event as { type: 'release'; result: { release: { status: string } } };
    assert.equal(release.result.release.status, 'CANCELLED');

    session.receive({ type: 'request', id: 'long', method: 'ask', params: { conversation_id: null, question: 'x'.repeat(5000) } });
    await eventually('the refusal', () => Boolean(reply(posted, 'long')), 5000, 20);
    const refused = reply(posted, 'long') as Extract<ChatReply, { ok: false }>;
    assert.equal(refused.ok, false);
    assert.match(refused.error.message, /5000 characters long, more than 4000/);

    // No snapshot any more: the turn is recorded, then breaks off with the reason.
    for (const s of await app.listSnapshots()) await fs.promises.rm(app.dir.snapshotDir(s.id), { recursive: true, force: true });
    await fs.promises.rm(app.dir.activeFile, { force: true });
    session.receive({ type: 'request', id: 'none', method: 'ask', params: { conversation_id: null, question: 'Anything?' } });
    await eventually('the turn error', () => posted.some((m) => m.type === 'turn_error'), 5000, 20);
    const te = posted.find((m) => m.type === 'turn_error') as Extract<ChatEvent, { type: 'turn_error' }>;
    assert.equal(te.code, 'collection_unavailable');
    assert.ok(posted.indexOf(reply(posted, 'none')!) < posted.indexOf(te));
    session.dispose();
    await app.close();
  });
});
