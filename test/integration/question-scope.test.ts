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
import { observationsOf } from '../fakes/scripted-replies';
import { fixture, tempDir } from '../helpers';
import { act, systemOf } from './agent-setup';

/**
 * A question limited to one document (the chat's @), through the application layer and the fake model
 * over real HTTP: whatever the model asks, every tool call runs inside the scope.
 */
describe('scoped questions: the harness keeps every tool call inside the scope', () => {
  let server: FakeOpenAIServer;
  let app: DocQaApp;
  const ws = workspaceKey([tempDir('docqa-ws-')]);
  let cell: { doc_id: string; title: string };
  let zh: { doc_id: string; title: string };
  before(async () => {
    server = await new FakeOpenAIServer().start();
    const notes = tempDir('docqa-notes-');
    for (const f of ['cell-notes.md', 'zh-history.md']) fs.copyFileSync(fixture('markdown', f), path.join(notes, f));
    fs.copyFileSync(fixture('text', 'study-plan.txt'), path.join(notes, 'study-plan.txt'));
    app = new DocQaApp({ dataDir: path.join(tempDir('docqa-scope-'), 'data'), settings: AppSettings.parse({ chat: { base_url: server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 } }), keys: fixedKeys('sk-test', undefined), appVersion: 'test' });
    await app.addSources([notes]);
    await (await app.startBuild({ confirmEgress: async () => true })).done;
    const targets = await app.scopeTargets();
    assert.equal(targets.documents.length, 3);
    cell = targets.documents.find((d) => d.file === 'cell-notes.md')!;
    zh = targets.documents.find((d) => d.file === 'zh-history.md')!;
  });
  after(async () => {
    assert.deepEqual(server.scriptErrors, []);
    await server.close();
  });

  it('narrows a call without doc_ids, refuses other doc_ids with an observation, lists only the scope; steps, trace, turn and replay say so', async () => {
    const start = server.requests.length;
    server.scriptChat(
      act('search_blocks', { query: 'microscope slide' }),
      act('scan_term', { term: '张骞', doc_ids: [zh.doc_id] }, { id: 'call-1', gain: 'GAINED' }),
      act('list_documents', {}),
      act('get_outline', { doc_ids: [cell.doc_id, zh.doc_id] }, { id: 'call-3', gain: 'GAINED' }),
      // The Finish cites the first block the narrowed search returned.
      (body) => `Thought: enough.\nAction: Finish[Use a drop of water【来源:${observationsOf(body)[0]!.payload!.blocks![0]!.ref}】.]`,
    );
    const events: ConversationAskEvent[] = [];
    const out = await app.askInConversation({ workspace: ws, conversation_id: null, question: 'How is the slide prepared?', scope: { sources: [], doc_ids: [cell.doc_id] } }, { onEvent: (e) => events.push(e) });
    assert.equal(out.turn.result?.release.status, 'SUCCESS');
    assert.equal(out.turn.result?.citations[0]?.doc_id, cell.doc_id);
    const bodies = server.requests.slice(start).filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);
    // The prompt names the scope; every Observation holds blocks of the scoped document only.
    assert.match(systemOf(bodies[0]!), new RegExp(`"question_scope":\\{"doc_ids":\\["${cell.doc_id}"\\]`));
    const obs = observationsOf(bodies.at(-1)!);
    assert.equal(obs.length, 4);
    const blocks = obs[0]!.payload!.blocks!;
    assert.ok(blocks.length > 0 && blocks.every((b) => b.ref.startsWith(`${cell.doc_id}#`)), 'the narrowed search returned only the scoped document');
    const scan = obs[1]!.payload as { error?: { code: string; message: string } };
    assert.equal(scan.error?.code, 'scope_not_found');
    assert.match(scan.error!.message, new RegExp(`doc_id ${zh.doc_id} is outside this question's scope: the user limited it to doc_ids ${cell.doc_id}`));
    const listed = (obs[2]!.payload as { documents: Array<{ doc_id: string }> }).documents.map((d) => d.doc_id);
    assert.deepEqual(listed, [cell.doc_id]);
    assert.equal((obs[3]!.payload as { error?: { code: string } } | null)?.error?.code, 'scope_not_found', JSON.stringify(obs[3]));

    // The steps say which scope was searched, counted within it.
    const requested = events.filter((e): e is Extract<ConversationAskEvent, { type: 'tool_requested' }> => e.type === 'tool_requested');
    assert.deepEqual(requested[0]!.scope.documents, { count: 1, of: 1, all: true, titles: [cell.title], scoped: true });
    assert.equal(requested[0]!.scope.words.en, `Searching “${cell.title}” for “microscope slide”`);
    assert.equal(requested[2]!.scope.words.en, 'Listing documents');
    const started = events.find((e) => e.type === 'run_started') as Extract<ConversationAskEvent, { type: 'run_started' }>;
    assert.deepEqual(started.scope, { documents: [{ doc_id: cell.doc_id, title: cell.title }], sources: [], of: 3 });
    assert.deepEqual(out.turn.scope, started.scope, 'the stored turn keeps its scope');

    // The trace: the request span names the scope, each tool span the input that really ran.
    await out.run.trace;
    const trace = await readTrace(app.dir, out.run.run_id);
    const root = trace.spans.find((s) => s.kind === 'request')!;
    assert.deepEqual(root.attributes.scope_doc_ids, [cell.doc_id]);
    const calls = trace.spans.filter((s) => s.kind === 'tool_call');
    assert.deepEqual((calls[0]!.attributes.input as { doc_ids: string[] }).doc_ids, [cell.doc_id]);
    // Replayed inside the same scope, every result is identical.
    const replay = await app.replayTrace(out.run.run_id);
    assert.equal(replay.identical, true, JSON.stringify(replay.calls.filter((c) => !c.identical)));
  });

  it('a source scope covers its documents; a document that is gone is refused before anything is sent', async () => {
    const targets = await app.scopeTargets();
    assert.equal(targets.sources.length, 1);
    server.scriptChat(act('scan_term', { term: 'cell' }), 'Thought: done.\nAction: Finish[Scanned.]');
    const out = await app.askInConversation({ workspace: ws, conversation_id: null, question: 'Which notes mention cells?', scope: { sources: [targets.sources[0]!.label], doc_ids: [] } });
    assert.equal(out.turn.scope?.documents.length, 3);
    const scan = out.turn.steps[0]!;
    assert.deepEqual(scan.scope.documents, { count: 3, of: 3, all: true, titles: out.turn.scope!.documents.map((d) => d.title), scoped: true });
    assert.equal(scan.scope.words.en, 'Scanning the 3 documents in scope for “cell”');
    assert.equal(scan.scope.words.zh, '在范围内的 3 篇文档中逐字扫描“cell”');

    const before = server.requests.length;
    await assert.rejects(app.askInConversation({ workspace: ws, conversation_id: null, question: 'Anything?', scope: { sources: [], doc_ids: ['d-gone'] } }), (e: Error & { code?: string }) => e.code === 'scope_not_found' && /document d-gone is not in the knowledge base any more/.test(e.message));
    assert.equal(server.requests.length, before, 'nothing was sent');
  });

  it('an unscoped question has no question_scope in its prompt (the prompt is byte for byte what it was)', async () => {
    const start = server.requests.length;
    server.scriptChat('Thought: no tools.\nAction: Finish[Hello.]');
    await app.ask({ question: 'Hello?' });
    assert.ok(!systemOf(server.requests[start]!.body).includes('question_scope'));
  });
});
