import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { UsageError } from '../../src/common/errors';
import { LmRefusal, asWritten, hostModelOf } from '../../src/vscode/lm-chat-model';
import { LM_PING, testLanguageModel } from '../../src/vscode/lm-connection';
import { eventually } from '../e2e/lib/wait';
import { fakeLmPort, zhTranslate } from '../fakes/lm-port';
import { FakeOpenAIServer } from '../fakes/openai-server';

const clock = () => {
  let t = 1000;
  return () => (t += 7);
};

describe('Test Connection with a VS Code language model as the chat provider (docqa.chat.provider = "vscode")', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer().start();
  });
  after(() => server.close());
  afterEach(() => server.resetScript());

  it('checks the model the person picked, with one tiny request through it, not DocQA’s own endpoint', async () => {
    server.scriptChat('OK');
    const before = server.requests.length;
    const r = await testLanguageModel(async () => ({ host: hostModelOf(fakeLmPort(server, undefined, { id: 'picked-model', name: 'Picked Model' })), missing: null }), asWritten, clock());
    assert.ok(r);
    assert.equal(r.ok, true, r.detail);
    assert.equal(r.detail, 'The VS Code language model Picked Model answered in 7 ms.');
    assert.deepEqual([r.provider, r.model_requested, r.model_reported, r.endpoint], ['chat', 'test/picked-model', 'Picked Model', null]);
    const sent = server.requests.slice(before);
    assert.equal(sent.length, 1, 'one request');
    assert.equal((sent[0]!.body as { model: string }).model, 'picked-model');
    assert.deepEqual((sent[0]!.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content), [LM_PING]);
  });

  it('says so when VS Code no longer offers the picked model and another one answers', async () => {
    server.scriptChat('OK');
    const r = await testLanguageModel(async () => ({ host: hostModelOf(fakeLmPort(server, undefined, { name: 'Other Model' })), missing: 'gone-model' }), asWritten, clock());
    assert.equal(r?.ok, true);
    assert.match(r!.detail, /^The language model you picked \(gone-model\) is not offered by VS Code now; questions go to Other Model, which answered in 7 ms\. Run “DocQA: Pick VS Code Language Model” to choose\.$/);
  });

  it('reports a lookup that finds no model, and a refusal, in the UI language, with what to do; nothing is sent', async () => {
    const zh = zhTranslate();
    const before = server.requests.length;
    const none = await testLanguageModel(async () => {
      throw new UsageError(zh('No VS Code language model is available: add one to VS Code (or sign in to Copilot), then run “DocQA: Pick VS Code Language Model”, or set {0} to "endpoint". Nothing was sent.', 'docqa.chat.provider'));
    }, zh, clock());
    assert.equal(none?.ok, false);
    assert.match(none!.detail, /^没有可用的 VS Code 语言模型/);
    const refused = await testLanguageModel(async () => ({ host: hostModelOf(fakeLmPort(server, new LmRefusal('NoPermissions', 'the user said no')), zh), missing: null }), zh, clock());
    assert.equal(refused?.ok, false);
    assert.match(refused!.detail, /^VS Code 没有允许 DocQA 使用语言模型 Fake Model（the user said no）。请在 VS Code 询问时允许/);
    assert.equal(server.requests.length, before);
    server.scriptChat('OK');
    const answered = await testLanguageModel(async () => ({ host: hostModelOf(fakeLmPort(server), zh), missing: null }), zh, clock());
    assert.equal(answered?.detail, 'VS Code 语言模型 Fake Model 在 7 毫秒内作答。');
  });

  it('is not the check when DocQA’s own endpoint answers questions (the endpoint’s own check runs instead)', async () => {
    assert.equal(await testLanguageModel(async () => null, asWritten, clock()), null);
  });

  it('a cancelled test ends the request to the model and reports nothing', { timeout: 20_000 }, async () => {
    server.inject('/v1/chat/completions', { kind: 'hang' });
    const ac = new AbortController();
    const before = server.requests.length;
    const pending = testLanguageModel(async () => ({ host: hostModelOf(fakeLmPort(server)), missing: null }), asWritten, clock(), ac.signal);
    await eventually('the request to reach the model', () => server.requests.length > before, 5000, 20);
    ac.abort();
    await assert.rejects(pending, (err: unknown) => err instanceof Error && err.name === 'AbortError');
  });
});
