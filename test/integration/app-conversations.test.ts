import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ConversationAskEvent } from '../../src/app/conversations/ask-in-conversation';
import { workspaceKey } from '../../src/app/conversations/workspace-key';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { readTrace } from '../../src/trace/trace-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';

const systemOf = (body: Record<string, unknown>) => (body.messages as Array<{ content: string }>)[0]!.content;

describe('conversations in the application layer: askInConversation and block lookup', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer().start();
  });
  after(async () => {
    assert.deepEqual(server.scriptErrors, []);
    await server.close();
  });

  const ws = workspaceKey([tempDir('docqa-ws-')]);
  const newApp = (root = path.join(tempDir('docqa-convo-'), 'data')) =>
    new DocQaApp({ dataDir: root, settings: AppSettings.parse({ chat: { base_url: server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 } }), keys: fixedKeys('sk-test', undefined), appVersion: 'test' });
  async function built(notes = tempDir('docqa-notes-')) {
    fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(notes, 'cells.md'));
    const app = newApp();
    await app.addSources([notes]);
    await (await app.startBuild({ confirmEgress: async () => true })).done;
    return { app, notes };
  }
  const search = 'Thought: search.\nAction: search_blocks[{"input": {"query": "cell membrane"}}]';

  it('records a new conversation turn by turn: ids before the run, run id and steps, the result; the follow-up gets the earlier Q/A and its trace says so', async () => {
    const { app } = await built();
    server.scriptChat(search, 'Thought: done.\nAction: Finish[It controls what enters the cell【来源:{{ref:1}}】.]');
    const events: ConversationAskEvent[] = [];
    const first = await app.askInConversation({ workspace: ws, conversation_id: null, question: 'What does the cell membrane do?' }, { onEvent: (e) => events.push(e) });
    assert.deepEqual(events[0], { type: 'conversation_turn', conversation_id: first.conversation_id, turn_id: 't1', created: true });
    assert.equal(events[1]!.type, 'run_started');
    const t1 = first.turn;
    assert.deepEqual([t1.state, t1.run_id, t1.snapshot_id, t1.prompt_bundle?.id, t1.owner], ['done', first.run.run_id, first.run.snapshot_id, 'baseline-en', undefined]);
    assert.deepEqual(t1.steps.map((s) => [s.tool_call_id, s.tool, s.outcome?.kind, s.blocks.length > 0]), [['call-1', 'search_blocks', 'ok', true]]);
    assert.equal(t1.result?.release.status, 'SUCCESS');
    const ref = t1.result!.citations[0]!.ref;

    const start = server.requests.length;
    server.scriptChat('Thought: known.\nAction: Finish[Small molecules slip through.]');
    const followEvents: ConversationAskEvent[] = [];
    const second = await app.askInConversation({ workspace: ws, conversation_id: first.conversation_id, question: 'What are its weaknesses?' }, { onEvent: (e) => followEvents.push(e) });
    assert.equal(second.conversation_id, first.conversation_id);
    assert.deepEqual(followEvents[0], { type: 'conversation_turn', conversation_id: first.conversation_id, turn_id: 't2', created: false });
    const started = followEvents.find((e) => e.type === 'run_started') as Extract<ConversationAskEvent, { type: 'run_started' }>;
    assert.deepEqual([started.conversation?.turns, started.conversation?.dropped], [1, 0]);
    const system = systemOf(server.requests[start]!.body);
    assert.ok(system.includes(JSON.stringify({ question: 'What does the cell membrane do?', answer: 'It controls what enters the cell.' })));
    assert.ok(!system.includes(ref));
    await second.run.trace;
    const meta = (await readTrace(app.dir, second.run.run_id)).meta!;
    assert.deepEqual([meta.conversation?.turns, meta.conversation?.dropped, meta.manifest.max_conversation_tokens], [1, 0, 2000]);
    assert.ok(meta.conversation!.tokens > 0);

    const stored = await app.conversations(ws).get(first.conversation_id);
    assert.deepEqual([stored.title, stored.turns.map((t) => [t.turn_id, t.state, t.run_id])], ['What does the cell membrane do?', [['t1', 'done', first.run.run_id], ['t2', 'done', second.run.run_id]]]);
    // Each past answer opens its trace.
    for (const t of stored.turns) assert.equal((await app.showTrace(t.run_id!)).run_id, t.run_id);
    assert.deepEqual((await app.conversations(ws).list()).conversations.map((c) => [c.id, c.turns]), [[first.conversation_id, 2]]);
  });

  it('a stopped run is stored as CANCELLED and gives a follow-up nothing; a run that cannot start is stored as an error and thrown', async () => {
    const { app } = await built();
    server.scriptChat('Thought: done.\nAction: Finish[Cells are the unit of life.]');
    const first = await app.askInConversation({ workspace: ws, conversation_id: null, question: 'What is a cell?' });
    const id = first.conversation_id;
    server.inject('/v1/chat/completions', { kind: 'hang' });
    const ac = new AbortController();
    const stopped = await app.askInConversation({ workspace: ws, conversation_id: id, question: 'And a tissue?' }, { signal: ac.signal, onEvent: (e) => e.type === 'turn_started' && setTimeout(() => ac.abort(), 50) });
    assert.deepEqual([stopped.turn.state, stopped.turn.result?.release.status], ['done', 'CANCELLED']);

    const start = server.requests.length;
    server.scriptChat('Thought: known.\nAction: Finish[An organ is tissues together.]');
    await app.askInConversation({ workspace: ws, conversation_id: id, question: 'And an organ?' });
    const system = systemOf(server.requests[start]!.body);
    assert.ok(system.includes('What is a cell?') && !system.includes('And a tissue?'), 'the cancelled turn gives nothing');

    // No snapshot any more: the turn records why, and the error reaches the host.
    await app.deleteSnapshot((await app.activeSnapshotId())!).catch(() => undefined);
    fs.rmSync(app.dir.activeFile, { force: true });
    await assert.rejects(app.askInConversation({ workspace: ws, conversation_id: id, question: 'And a body?' }), /no snapshot is active/);
    const turns = (await app.conversations(ws).get(id)).turns;
    assert.deepEqual(turns.map((t) => t.state), ['done', 'done', 'done', 'error']);
    assert.deepEqual(turns[3]!.error?.code, 'collection_unavailable');
    // An empty question is refused before anything is recorded.
    await assert.rejects(app.askInConversation({ workspace: ws, conversation_id: id, question: ' ' }), /the question is empty/);
    assert.equal((await app.conversations(ws).get(id)).turns.length, 4);
    await assert.rejects(app.askInConversation({ workspace: ws, conversation_id: 'c20261201T000000000Z-abcdef', question: 'x' }), (e: { code?: string }) => e.code === 'conversation_not_found');
  });

  it('block(): a cited block from the answer’s snapshot while it exists, else from the active one (saying which); a removed file and an unknown block say so', async () => {
    const { app, notes } = await built();
    const first = (await app.activeSnapshotId())!;
    const found = (await app.runTool('search_blocks', { query: 'cell membrane' })) as unknown as { blocks: Array<{ doc_id: string; block_id: string; text: string }> };
    const b = found.blocks[0]!;
    const named = await app.block({ doc_id: b.doc_id, block_id: b.block_id, snapshot_id: first });
    assert.ok(named.found);
    assert.deepEqual([named.snapshot_id, named.snapshot_used, named.text, named.path, named.file_exists, named.location.kind], [first, 'named', b.text, path.join(notes, 'cells.md'), true, 'lines']);
    assert.equal(named.doc_title, 'Cell Biology Notes');

    // A newer snapshot (another note added), the first deleted: the block comes from the active one.
    fs.writeFileSync(path.join(notes, 'more.md'), '# More\n\nAnother note about tissues.\n');
    await (await app.startBuild({ confirmEgress: async () => true })).done;
    await app.deleteSnapshot(first);
    const active = await app.block({ doc_id: b.doc_id, block_id: b.block_id, snapshot_id: first });
    assert.ok(active.found);
    assert.deepEqual([active.snapshot_used, active.snapshot_id === first, active.text], ['active', false, b.text]);
    assert.equal((await app.block({ doc_id: b.doc_id, block_id: b.block_id, snapshot_id: '../../etc' })).snapshot_used, 'active');

    fs.rmSync(path.join(notes, 'cells.md'));
    const gone = await app.block({ doc_id: b.doc_id, block_id: b.block_id });
    assert.deepEqual([gone.found, gone.found && gone.file_exists], [true, false]);
    const none = await app.block({ doc_id: b.doc_id, block_id: 'bnope' });
    assert.deepEqual([none.found, !none.found && none.reason], [false, 'block_not_found']);
    const noDoc = await app.block({ doc_id: 'dnope', block_id: b.block_id });
    assert.deepEqual([noDoc.found, !noDoc.found && noDoc.reason], [false, 'document_not_found']);
  });
});
