import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { workspaceKey } from '../../src/app/conversations/workspace-key';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { makeCli } from './cli';

const systemOf = (body: Record<string, unknown>) => (body.messages as Array<{ content: string }>)[0]!.content;

describe('docqa ask --conversation and docqa chat', () => {
  let server: FakeOpenAIServer;
  let cli: ReturnType<typeof makeCli>;
  const work = tempDir('docqa-ws-');
  const ws = ['--workspace', work];
  before(async () => {
    server = await new FakeOpenAIServer().start();
    cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: 'sk-test-chat-000000' });
    cli.json(['sources', 'add', fixture('markdown', 'zh-history.md'), '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
  });
  after(async () => {
    assert.deepEqual(server.scriptErrors, []);
    await server.close();
  });

  let id = '';

  it('a new conversation, then a follow-up that sees the earlier question and answer (the full trace’s prompt shows it); the ids are printed', async () => {
    server.scriptChat('Thought: 查找。\nAction: search_blocks[{"input": {"query": "张骞"}}]', 'Thought: 足够。\nAction: Finish[张骞出使西域【来源:{{ref:1}}】。]');
    const first = await cli.runAsync(['ask', '张骞做了什么？', '--conversation', 'new', ...ws, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const out = JSON.parse(first.stdout) as { conversation_id: string; turn_id: string; run_id: string; conversation: { turns: number }; citations: Array<{ ref: string }> };
    assert.match(out.conversation_id, /^c\d{8}T\d{9}Z-[0-9a-f]{6}$/);
    assert.deepEqual([out.turn_id, out.conversation.turns], ['t1', 0]);
    id = out.conversation_id;
    const oldRef = out.citations[0]!.ref;

    const start = server.requests.length;
    server.scriptChat('Thought: 根据上文。\nAction: Finish[史料记载有限。]');
    const follow = await cli.runAsync(['ask', '它的缺点呢？', '--conversation', id, ...ws, '--trace', 'full']);
    assert.equal(follow.code, 0, follow.stderr);
    assert.match(follow.stdout, new RegExp(`^conversation ${id} \\(turn t2, 1 earlier turn as context\\)$`, 'm'));
    const runId = /trace (r\S+)/.exec(follow.stdout)![1]!;
    const line = JSON.stringify({ question: '张骞做了什么？', answer: '张骞出使西域。' });
    assert.ok(systemOf(server.requests[start]!.body).includes(`<conversation>\n`));
    const prompt = cli.json<Array<{ role: string; content: string }>>(['trace', 'prompt', runId, '--turn', '1', '--json']);
    assert.ok(prompt[0]!.content.includes(`${line}\n</conversation>\n<question>\n它的缺点呢？\n</question>`), 'the prompt artifact shows the conversation');
    assert.ok(!prompt[0]!.content.includes(oldRef), 'not its citation');
    const meta = cli.json<{ meta: { conversation: { turns: number; dropped: number; tokens: number }; manifest: { max_conversation_tokens: number } } }>(['trace', 'show', runId, '--json']).meta;
    assert.deepEqual([meta.conversation.turns, meta.conversation.dropped, meta.manifest.max_conversation_tokens], [1, 0, 2000]);
    assert.match(cli.run(['trace', 'show', runId]).stdout, new RegExp(`^conversation: 1 earlier turn in the prompts \\(${meta.conversation.tokens} tokens\\)$`, 'm'));
  });

  it('chat list, show, rename and delete; another workspace has none of it', async () => {
    const list = cli.run(['chat', 'list', ...ws]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^${id}  \\S+ +2 turns  张骞做了什么？$`, 'm'));
    const json = cli.json<{ conversations: Array<{ id: string; turns: number }>; unreadable: unknown[] }>(['chat', 'list', ...ws, '--json']);
    assert.deepEqual([json.conversations.map((c) => [c.id, c.turns]), json.unreadable], [[[id, 2]], []]);
    const shown = cli.run(['chat', 'show', id, ...ws]);
    assert.match(shown.stdout, /^t1 {2}\[SUCCESS\] {2}\S+ {2}trace r\S+\n {2}Q: 张骞做了什么？\n {2}A: 张骞出使西域【来源:d[0-9a-f]+#b[0-9a-f]+】。$/m);
    assert.match(shown.stdout, /^t2 {2}\[SUCCESS\].*\n {2}Q: 它的缺点呢？\n {2}A: 史料记载有限。$/m);
    assert.equal(cli.json<{ turns: unknown[] }>(['chat', 'show', id, ...ws, '--json']).turns.length, 2);
    assert.match(cli.run(['chat', 'rename', id, '丝绸之路', ...ws]).stdout, /renamed .*: 丝绸之路/);
    assert.match(cli.run(['chat', 'list', ...ws]).stdout, /丝绸之路$/m);
    assert.match(cli.run(['chat', 'list', '--workspace', tempDir()]).stdout, /^no conversations in this workspace yet/);
    const elsewhere = cli.run(['chat', 'show', id, '--workspace', tempDir()]);
    assert.deepEqual([elsewhere.code, /no conversation c\S+ in this workspace/.test(elsewhere.stderr)], [1, true]);

    assert.equal(cli.run(['chat', 'delete', id, ...ws]).code, 0);
    const gone = cli.run(['chat', 'show', id, ...ws]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /^docqa: no conversation c\S+ in this workspace \(see `docqa chat list`\)\n$/);
  });

  it('usage errors exit 2; an unreadable file is named on stderr and left alone; without --workspace the current directory is the workspace', async () => {
    const bad = await cli.runAsync(['ask', 'x', '--conversation', '../../sources', ...ws]);
    assert.deepEqual([bad.code, bad.stderr], [2, 'docqa: "../../sources" is not a conversation id (e.g. c20261201T134802123Z-3f9a1c)\n']);
    assert.equal((await cli.runAsync(['ask', 'x', ...ws])).code, 2, '--workspace needs --conversation');
    const env = await cli.runAsync(['ask', 'x', '--conversation', 'new', ...ws], { DOCQA_MAX_CONVERSATION_TOKENS: 'lots' });
    assert.deepEqual([env.code, env.stderr], [2, 'docqa: DOCQA_MAX_CONVERSATION_TOKENS must be a whole number, not "lots"\n']);

    const dir = path.join(cli.store, 'conversations', workspaceKey([work]));
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'c20261201T000000000Z-000002.json');
    fs.copyFileSync(fixture('conversations', 'future-version.json'), file);
    const before = fs.readFileSync(file, 'utf8');
    const list = cli.run(['chat', 'list', ...ws]);
    assert.equal(list.code, 0);
    assert.match(list.stderr, /^docqa: cannot read conversation c20261201T000000000Z-000002 \(store_future_version\): .*newer than this DocQA understands.*; it is left as it is$/m);
    assert.equal(fs.readFileSync(file, 'utf8'), before);

    server.scriptChat('Thought: ok.\nAction: Finish[好。]');
    const here = await cli.runAsync(['ask', '你好', '--conversation', 'new']);
    assert.equal(here.code, 0, here.stderr);
    const cid = /^conversation (c\S+) /m.exec(here.stdout)![1]!;
    assert.ok(fs.existsSync(path.join(cli.store, 'conversations', workspaceKey([process.cwd()]), `${cid}.json`)));

    // A bound too small for the earlier turn: it is left out, and the run says so.
    server.scriptChat('Thought: ok.\nAction: Finish[好的。]');
    const tight = await cli.runAsync(['ask', '再说一遍？', '--conversation', cid, '--json'], { DOCQA_MAX_CONVERSATION_TOKENS: '1' });
    assert.equal(tight.code, 0, tight.stderr);
    const t = JSON.parse(tight.stdout) as { run_id: string; turn_id: string; conversation: { turns: number; dropped: number } };
    assert.deepEqual([t.turn_id, t.conversation], ['t2', { turns: 0, dropped: 1, tokens: 0 }]);
    assert.match(cli.run(['trace', 'show', t.run_id]).stdout, /^conversation: 0 earlier turns in the prompts \(0 tokens\), 1 older left out \(max 1 tokens\)$/m);
  });
});
