import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture } from '../helpers';
import { makeCli } from './cli';

const CHAT_KEY = 'sk-chat-planted-0badc0de';

describe('docqa ask', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: CHAT_KEY }).start();
  });
  after(() => server.close());

  it('answers with resolved citations and the run summary as JSON; the chat key appears nowhere', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: CHAT_KEY });
    cli.json(['sources', 'add', fixture('markdown', 'zh-history.md'), '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
    server.scriptChat('Thought: 查找。\nAction: search_blocks[{"input": {"query": "张骞"}}]', (body) => {
      const system = (body.messages as Array<{ content: string }>)[0]!.content;
      const ref = /"ref":"([^"]+)"/.exec(system.slice(system.lastIndexOf('Observation: ')))![1]!;
      return `Thought: 足够。\nAction: Finish[张骞出使西域【来源:${ref}】。]`;
    });
    const r = await cli.runAsync(['ask', '张骞做了什么？', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      run_id: string;
      snapshot_id: string;
      release: { status: string };
      answer: string;
      citations: Array<{ doc_title: string; section_path: string }>;
      counts: { tool_calls: number; model_calls: number };
      tokens: { prompt: number; completion: number; embedding: number };
    };
    assert.equal(out.release.status, 'SUCCESS');
    assert.match(out.answer, /^张骞出使西域【来源:d[0-9a-f]+#b[0-9a-f]+】。$/);
    assert.deepEqual(out.citations.map((c) => [c.doc_title, c.section_path]), [['中国历史笔记', '中国历史笔记 > 汉朝 (2) > 人物 › 张骞']]);
    assert.deepEqual([out.counts.tool_calls, out.counts.model_calls], [1, 2]);
    assert.ok(out.tokens.prompt > 0 && out.tokens.embedding === 0);
    assert.match(out.run_id, /^r\d{8}T\d{9}Z-[0-9a-f]{6}$/);
    // The Chinese bundle was used for a Chinese question.
    const lastBody = server.requests[server.requests.length - 1]!.body as { messages: Array<{ content: string }> };
    assert.match(lastBody.messages[0]!.content, /文档学习问答 Agent/);
    assert.ok(!r.stdout.includes(CHAT_KEY) && !r.stderr.includes(CHAT_KEY));
    for (const f of fs.readdirSync(cli.store, { recursive: true }) as string[]) {
      const p = path.join(cli.store, f);
      if (fs.statSync(p).isFile()) assert.ok(!fs.readFileSync(p).includes(CHAT_KEY), `${f} contains the chat key`);
    }
  });

  it('a run that fails closed exits 1 with one line on stderr; no snapshot is an error', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: CHAT_KEY });
    const none = await cli.runAsync(['ask', 'anything']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no snapshot is active/);
    cli.json(['sources', 'add', fixture('markdown', 'zh-history.md'), '--json']);
    await cli.runAsync(['index', '--yes']);
    server.scriptChat('no protocol at all', 'still none', 'and again');
    const r = await cli.runAsync(['ask', 'What?']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^docqa: no answer \(PROGRESS_PROTOCOL_VIOLATED\): Stopped \(the model repeatedly broke the protocol\) before anything was verified: no answer is given\.\n$/);
    assert.match(r.stdout, /\[FAILED PROGRESS_PROTOCOL_VIOLATED\]/);
  });
});

describe('docqa ask: what is checked before anything is sent, and errors a person can act on', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: CHAT_KEY }).start();
  });
  after(() => server.close());

  it('an empty or oversized question is a usage error; no chat key for a remote endpoint is refused before any request', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: CHAT_KEY });
    cli.json(['sources', 'add', fixture('markdown', 'cell-notes.md'), '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
    const before = server.requests.length;
    for (const q of ['', '   \n\t ']) {
      const r = await cli.runAsync(['ask', q]);
      assert.deepEqual([r.code, r.stderr], [2, 'docqa: the question is empty: ask something, e.g. docqa ask "What is osmosis?"\n']);
    }
    const long = await cli.runAsync(['ask', 'x'.repeat(41)], { DOCQA_MAX_QUESTION_CHARS: '40' });
    assert.deepEqual([long.code, long.stderr], [2, 'docqa: the question is 41 characters long, more than 40 (DOCQA_MAX_QUESTION_CHARS): shorten it, or raise the limit\n']);
    // The default endpoint is DeepSeek's: without a key nothing is sent, and the message says what to set.
    const nokey = await cli.runAsync(['ask', 'What is a cell?'], { DOCQA_CHAT_BASE_URL: '', DOCQA_CHAT_API_KEY: '' });
    assert.deepEqual([nokey.code, nokey.stderr], [2, 'docqa: no chat API key: set DOCQA_CHAT_API_KEY to your key for https://api.deepseek.com (model deepseek-v4-flash); nothing was sent\n']);
    assert.equal(server.requests.length, before, 'nothing reached the server');
  });

  it('a wrong key ends with the service, host and port, status, its words (key redacted), the attempts and what to do — on stderr and in --json', async () => {
    const wrong = 'sk-chat-wrong-0ddba11';
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: wrong });
    cli.json(['sources', 'add', fixture('markdown', 'cell-notes.md'), '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
    const host = new URL(server.baseURL).host;
    const detail = `The chat model deepseek-v4-flash at ${host} rejected the API key (HTTP 401: “Authentication Fails: incorrect API key provided: [REDACTED]”), after 1 attempt. Check the chat API key (DOCQA_CHAT_API_KEY) and that it belongs to ${host}.`;
    const r = await cli.runAsync(['ask', 'What is a cell?']);
    assert.deepEqual([r.code, r.stderr], [1, `docqa: no answer (MODEL_AUTH): ${detail}\n`]);
    const j = await cli.runAsync(['ask', 'What is a cell?', '--json']);
    const out = JSON.parse(j.stdout) as { release: { status: string; reason: string; detail: string; failure: { provider: string; endpoint: string; status: number; attempts: number } } };
    assert.deepEqual([out.release.status, out.release.reason, out.release.detail], ['FAILED', 'MODEL_AUTH', detail]);
    assert.deepEqual([out.release.failure.provider, out.release.failure.endpoint, out.release.failure.status, out.release.failure.attempts], ['chat', host, 401, 1]);
    assert.ok(!j.stdout.includes(wrong) && !r.stderr.includes(wrong));
  });

  it('the fake server by hand (`npm run fake-server -- --script FILE`), as the README shows it: a full offline ask with a scripted model', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'fakes', 'fake-server-cli.ts'), '--script', fixture('scripts', 'cell-membrane.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const baseURL = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /^export DOCQA_CHAT_BASE_URL=(\S+)$/m.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`fake-server exited ${code}: ${out}`)));
      });
      const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: baseURL });
      cli.json(['sources', 'add', fixture('markdown', 'cell-notes.md'), '--json']);
      assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
      const r = await cli.runAsync(['ask', 'What does the cell membrane do?']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^The cell membrane controls what enters and leaves the cell【来源:d[0-9a-f]+#b[0-9a-f]+】\.\n\nSources\n {2}d[0-9a-f]+#b[0-9a-f]+ {2}Cell Biology Notes — .+\n\n\[SUCCESS\] 1 tool calls, 2 model calls/);
    } finally {
      child.kill();
    }
  });
});
