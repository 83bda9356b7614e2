import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CONVERSATION_FORMAT_VERSION, Conversation } from '../../src/shared/conversation';
import { ConversationStore } from '../../src/app/conversations/conversation-store';
import { defaultTitle, earlierTurns } from '../../src/app/conversations/conversation-turns';
import { NO_FOLDER_KEY, checkWorkspaceKey, workspaceKey } from '../../src/app/conversations/workspace-key';
import { DataDir } from '../../src/common/data-dir';
import type { AgentResult } from '../../src/shared/run-result';
import { fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';

const WS = workspaceKey(['/home/learner/biology']);
const fixedClock = (iso: string) => ({ now: () => new Date(iso) });
const store = (root = tempDir(), clock?: { now: () => Date }) => new ConversationStore(new DataDir(root), WS, clock);

describe('workspace keys', () => {
  it('are stable, ignore folder order and duplicates, differ per folder set; no folder has its own key; only such keys are accepted', () => {
    const a = workspaceKey(['/w/notes', '/w/papers']);
    assert.match(a, /^w[0-9a-f]{16}$/);
    assert.equal(workspaceKey(['/w/papers', '/w/notes', '/w/notes/']), a);
    assert.notEqual(workspaceKey(['/w/notes']), a);
    assert.equal(workspaceKey([]), NO_FOLDER_KEY);
    for (const bad of ['../x', 'w123', 'W0123456789abcdef', '']) assert.throws(() => checkWorkspaceKey(bad), /is not a workspace key/);
    assert.throws(() => new ConversationStore(new DataDir(tempDir()), '../../etc'), /is not a workspace key/);
  });
});

describe('the conversation store', () => {
  it('creates, lists newest first (ties by id), titles by the first question, renames and deletes; one file per conversation under the workspace key', async () => {
    const root = tempDir();
    const s = store(root, fixedClock('2026-12-01T10:00:00.000Z'));
    const a = await s.create();
    const b = await s.create();
    const listed = (await s.list()).conversations.map((c) => c.id);
    assert.deepEqual(listed, [a.id, b.id].sort(), 'equal updated_at: by id');
    assert.deepEqual(fs.readdirSync(path.join(root, 'conversations', WS)).sort(), [`${a.id}.json`, `${b.id}.json`].sort());

    const later = store(root, fixedClock('2026-12-01T11:00:00.000Z'));
    const turn = await later.appendTurn(b.id, { question: '  What is\n osmosis,   really?  ', lang: 'en' });
    assert.deepEqual([turn.turn_id, turn.state, turn.owner], ['t1', 'running', { pid: process.pid, host: os.hostname() }]);
    await later.appendTurn(b.id, { question: 'And diffusion?', lang: 'en' });
    const { conversations } = await later.list();
    assert.deepEqual(conversations[0], { id: b.id, title: 'What is osmosis, really?', updated_at: '2026-12-01T11:00:00.000Z', turns: 2 });
    assert.equal(conversations[1]!.id, a.id);
    assert.equal((await later.rename(a.id, ' Cell  biology ')).title, 'Cell biology');
    assert.deepEqual((await later.list()).conversations.map((c) => c.id), [a.id, b.id].sort((x, y) => (x < y ? -1 : 1)), 'renamed at the same instant: by id');
    await assert.rejects(later.rename(a.id, '   '), /title cannot be empty/);

    // The file is the schema, versioned.
    const raw = JSON.parse(fs.readFileSync(path.join(root, 'conversations', WS, `${b.id}.json`), 'utf8')) as unknown;
    assert.equal(Conversation.parse(raw).formatVersion, CONVERSATION_FORMAT_VERSION);

    await later.delete(a.id);
    assert.deepEqual((await later.list()).conversations.map((c) => c.id), [b.id]);
    await assert.rejects(later.get(a.id), (e: { code?: string }) => e.code === 'conversation_not_found');
    await assert.rejects(later.delete(a.id), (e: { code?: string }) => e.code === 'conversation_not_found');
    await assert.rejects(later.get('../../sources'), /is not a conversation id/);
    // Another workspace sees none of it.
    assert.deepEqual(await new ConversationStore(new DataDir(root), NO_FOLDER_KEY).list(), { conversations: [], unreadable: [] });
  });

  it('default titles are one line, cut at 80 characters', () => {
    assert.equal(defaultTitle(' a\tb \n c '), 'a b c');
    const long = defaultTitle('细'.repeat(100));
    assert.deepEqual([[...long].length, long.endsWith('…')], [80, true]);
  });

  it('updates a turn from running to done (owner dropped); only answered turns feed a follow-up', async () => {
    const s = store();
    const c = await s.create();
    const t1 = await s.appendTurn(c.id, { question: 'Q1', lang: 'en' });
    const t2 = await s.appendTurn(c.id, { question: 'Q2', lang: 'en' });
    await s.updateTurn(c.id, t1.turn_id, { run_id: 'r1' });
    assert.equal((await s.get(c.id)).turns[0]!.state, 'running');
    await assert.rejects(s.updateTurn(c.id, t1.turn_id, { state: 'done', result: { answer: 'A1' } as unknown as AgentResult }), /would not match its schema at turns\.0\.result\.release.*nothing was written/);
    const zero = { agent_turns: 0, tool_calls: 0, model_calls: 0, rejected_requests: 0 };
    const result: AgentResult = {
      release: { status: 'SUCCESS', reason: null, detail: null, failure: null },
      stop_reason: null,
      answer: 'A1',
      citations: [],
      removed_citations: [],
      counts: zero,
      tokens: { prompt: 0, completion: 0, embedding: 0, estimated: { chat: false, embedding: false } },
      ledger: { chat_tokens: 0, max_request_tokens: 1, largest_context: 0, max_context_tokens: 1, tool_calls: 0, max_tool_calls: 0, model_calls: 0, retries: 0, embedding_tokens: 0, estimated: false },
      progress: { stop_reason: null, sources: [], facts: [], scopes_checked: [], limitations: [] },
    };
    const done = await s.updateTurn(c.id, t1.turn_id, { state: 'done', result });
    assert.deepEqual([done.state, done.run_id, done.owner], ['done', 'r1', undefined]);
    await s.updateTurn(c.id, t2.turn_id, { state: 'error', error: { code: 'collection_unavailable', message: 'no snapshot' } });
    assert.deepEqual(earlierTurns(await s.get(c.id)), [{ question: 'Q1', answer: 'A1' }]);
    await assert.rejects(s.updateTurn(c.id, 't9', { state: 'done' }), /has no turn t9/);
  });

  it('a turn left running by a process that is gone is interrupted on read (and written so); a live or foreign owner is left alone', async () => {
    const root = tempDir();
    const s = store(root);
    const c = await s.create();
    await s.appendTurn(c.id, { question: 'mine, running', lang: 'en' });
    const file = path.join(root, 'conversations', WS, `${c.id}.json`);
    const stored = Conversation.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    const dead = { ...stored.turns[0]!, turn_id: 't2', question: 'dead owner', owner: { pid: 2 ** 22 + 17, host: os.hostname() } };
    const foreign = { ...stored.turns[0]!, turn_id: 't3', question: 'other host', owner: { pid: 2 ** 22 + 17, host: `${os.hostname()}-elsewhere` } };
    const legacy = { ...stored.turns[0]!, turn_id: 't4', question: 'no owner', owner: undefined };
    fs.writeFileSync(file, JSON.stringify({ ...stored, turns: [stored.turns[0], dead, foreign, legacy] }));
    const got = await s.get(c.id);
    assert.deepEqual(got.turns.map((t) => [t.turn_id, t.state]), [['t1', 'running'], ['t2', 'interrupted'], ['t3', 'running'], ['t4', 'running']]);
    assert.equal(got.turns[1]!.owner, undefined);
    assert.equal(Conversation.parse(JSON.parse(fs.readFileSync(file, 'utf8'))).turns[1]!.state, 'interrupted', 'written for every window');
  });

  it('a damaged or future-version file is listed as unreadable with the reason, refused by get and append, never rewritten; only an explicit delete removes it', async () => {
    const root = tempDir();
    const s = store(root);
    const good = await s.create();
    const dir = path.join(root, 'conversations', WS);
    const future = 'c20261201T000000000Z-000002';
    const torn = 'c20261201T000000000Z-000003';
    fs.copyFileSync(fixture('conversations', 'future-version.json'), path.join(dir, `${future}.json`));
    fs.copyFileSync(fixture('conversations', 'truncated.json'), path.join(dir, `${torn}.json`));
    const bytes = () => [future, torn].map((id) => fs.readFileSync(path.join(dir, `${id}.json`), 'utf8'));
    const before = bytes();
    const listing = await s.list();
    assert.deepEqual(listing.conversations.map((c) => c.id), [good.id]);
    assert.deepEqual(listing.unreadable.map((u) => [u.id, u.code]), [[future, 'store_future_version'], [torn, 'store_corrupt']]);
    assert.match(listing.unreadable[0]!.message, /formatVersion 3, newer than this DocQA understands \(2\); upgrade DocQA/);
    assert.match(listing.unreadable[1]!.message, /not valid JSON \(truncated or damaged\)/);
    await assert.rejects(s.get(future), (e: { code?: string }) => e.code === 'store_future_version');
    await assert.rejects(s.appendTurn(torn, { question: 'x', lang: 'en' }), (e: { code?: string }) => e.code === 'store_corrupt');
    await assert.rejects(s.rename(future, 'mine now'), (e: { code?: string }) => e.code === 'store_future_version');
    assert.deepEqual(bytes(), before, 'never rewritten');
    await s.delete(torn);
    assert.deepEqual((await s.list()).unreadable.map((u) => u.id), [future]);
  });

  it('two processes appending to one conversation at once lose no turn (each read-modify-write holds the lock)', { timeout: 60_000 }, async () => {
    const root = tempDir();
    const c = await store(root).create();
    const child = path.join(__dirname, 'conversation-append-child.ts');
    const run = (tag: string) =>
      new Promise<number>((resolve) => {
        const p = spawn(process.execPath, ['--import', 'tsx', child, root, WS, c.id, tag, '25'], { stdio: ['ignore', 'ignore', 'inherit'] });
        p.on('close', (code) => resolve(code ?? -1));
      });
    // And this process too, through a DataDir of its own, as a third window.
    const here = (async () => {
      const s = store(root);
      for (let i = 0; i < 6; i++) await s.appendTurn(c.id, { question: `here ${i}`, lang: 'en' });
      return 0;
    })();
    assert.deepEqual(await Promise.all([run('left'), run('right'), here]), [0, 0, 0]);
    const turns = (await store(root).get(c.id)).turns;
    assert.equal(turns.length, 56);
    assert.deepEqual(turns.map((t) => t.turn_id), Array.from({ length: 56 }, (_, i) => `t${i + 1}`));
    for (const tag of ['left', 'right']) assert.deepEqual(turns.filter((t) => t.question.startsWith(tag)).map((t) => t.question), Array.from({ length: 25 }, (_, i) => `${tag} ${i}`), `${tag}: all, in order`);
    assert.equal(turns.filter((t) => t.question.startsWith('here')).length, 6);
    recordTrials({ area: 'concurrency', fault: 'three processes appending turns to one conversation at once', trials: 56, outcome: 'all 56 turns kept, each writer\'s in order, ids t1…t56' }, __filename);
  });
});
