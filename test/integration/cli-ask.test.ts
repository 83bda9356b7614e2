import assert from 'node:assert/strict';
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
    assert.equal((await cli.runAsync(['index'])).code, 0);
    server.scriptChat('Thought: 查找。\nAction: scan_term[{"input": {"term": "张骞"}}]', (body) => {
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
    await cli.runAsync(['index']);
    server.scriptChat('no protocol at all', 'still none', 'and again');
    const r = await cli.runAsync(['ask', 'What?']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^docqa: no answer: PROGRESS_PROTOCOL_VIOLATED\n$/);
    assert.match(r.stdout, /\[FAILED PROGRESS_PROTOCOL_VIOLATED\]/);
  });
});
