import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { AgentEvent } from '../../src/harness/agent-loop';
import { ChatClient, ChatConfig } from '../../src/harness/model-client';
import { countTokens } from '../../src/common/tokenizer';
import { queryEmbedderFor } from '../../src/tools/query-embedder';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { type AgentSetup, act, useAgentSetup, lastObservation, recordingTracer } from './agent-setup';

const finish = (answer: string) => `Thought: done.\nAction: Finish[${answer}]`;

describe('what a run releases: fallbacks from verified progress, technical failures in words, checked citations, counts', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  beforeEach(() => {
    t = setup();
  });

  it('a fallback is made of what the tools returned, in the question’s language: a scoped empty result is a fact', async () => {
    t.server.scriptChat(act('scan_term', { term: 'zzqxj' }), act('scan_term', { term: 'zzqxj ' }), act('scan_term', { term: 'qqq' }));
    const rec = recordingTracer();
    const r = await t.run('笔记里提到 zzqxj 了吗？', { bundle: t.zhBundle, lang: 'zh', tracer: rec.tracer });
    assert.deepEqual([r.release.status, r.release.reason, r.stop_reason], ['FALLBACK', 'INSUFFICIENT_EVIDENCE', 'INFORMATION_SATURATED']);
    assert.equal(r.answer, '未能形成完整回答（证据不足：继续检索不再带来新信息）。本次已核查：\n- 在全部 5 篇文档中逐字扫描“zzqxj”：0 处命中');
    assert.deepEqual(r.progress.facts.map((f) => [f.scope.tool, f.scope.documents, f.outcome.kind, f.outcome.hits]), [['scan_term', { count: 5, of: 5, all: true, titles: [] }, 'empty', 0]]);
    assert.match(r.release.detail!, /Stopped \(further searches added nothing new\).*1 check made/);
    // One definition of a rejected request: the repeat (answered STOP_REQUIRED) and the request after it, as in the trace.
    assert.equal(r.counts.rejected_requests, rec.spans('rejected_request').length);
    assert.equal(r.counts.rejected_requests, 2);
  });

  it('an error payload is not progress: the failed search takes the tool out of service, and the run fails with the technical reason in words, the key nowhere', async () => {
    const { snapshot, embedding } = await t.hybrid();
    const key = 'sk-embed-planted-0123456789';
    t.server.inject('/v1/embeddings', { kind: 'unauthorized' });
    let second = '';
    t.server.scriptChat(
      act('search_blocks', { query: 'microscope' }),
      (body) => {
        const o = lastObservation(body);
        assert.equal(o.payload?.error?.code, 'upstream_unavailable');
        return act('search_blocks', { query: 'light microscope' });
      },
      (body) => {
        second = lastObservation(body).harness_status;
        return act('search_blocks', { query: 'slide' });
      },
      act('search_blocks', { query: 'lens' }),
    );
    const before = t.server.requests.filter((q) => q.path === '/v1/embeddings').length;
    const r = await t.run('How to look at cells?', { snapshot, embedQuery: queryEmbedderFor(snapshot.manifest.embedding, embedding, key) });
    assert.equal(second, 'tool_unavailable');
    assert.equal(t.server.requests.filter((q) => q.path === '/v1/embeddings').length - before, 1, 'the out-of-service tool was not called again');
    assert.deepEqual([r.release.status, r.release.reason, r.answer], ['FAILED', 'UPSTREAM_UNAVAILABLE', null]);
    assert.deepEqual(r.progress.facts, []);
    assert.deepEqual(r.progress.limitations.map((l) => l.kind), ['tool_error']);
    const f = r.release.failure!;
    assert.deepEqual([f.provider, f.kind, f.endpoint, f.status, f.attempts, f.action], ['embedding', 'auth', new URL(t.server.baseURL).host, 401, 1, 'check_key']);
    assert.match(r.release.detail!, /^The embedding model fake at 127\.0\.0\.1:\d+ rejected the API key \(HTTP 401: “Authentication Fails: incorrect API key provided: \[REDACTED\]”\), after 1 attempt\. Check the embedding API key \(DOCQA_EMBEDDING_API_KEY\)/);
    assert.ok(!JSON.stringify(r).includes(key));
  });

  describe('chat provider failures name the service, host and port, status or network error, its words, the attempts and what to do', () => {
    const KEY = 'sk-chat-right-key-000111';
    let guarded: FakeOpenAIServer;
    before(async () => {
      guarded = await new FakeOpenAIServer({ apiKey: KEY }).start();
    });
    after(() => guarded.close());
    const client = (baseURL: string, key = KEY) => new ChatClient(ChatConfig.parse({ base_url: baseURL, idle_timeout_ms: 2000, total_timeout_ms: 5000 }), key);

    it('a wrong key: MODEL_AUTH, not retried, the key redacted from the service’s message', async () => {
      const wrong = 'sk-chat-wrong-key-999888';
      const r = await t.run('Anything?', { model: client(guarded.baseURL, wrong) });
      assert.deepEqual([r.release.status, r.release.reason], ['FAILED', 'MODEL_AUTH']);
      assert.deepEqual([r.release.failure?.status, r.release.failure?.attempts, r.release.failure?.action], [401, 1, 'check_key']);
      assert.equal(r.release.detail, `The chat model deepseek-v4-flash at ${new URL(guarded.baseURL).host} rejected the API key (HTTP 401: “Authentication Fails: incorrect API key provided: [REDACTED]”), after 1 attempt. Check the chat API key (DOCQA_CHAT_API_KEY) and that it belongs to ${new URL(guarded.baseURL).host}.`);
      assert.ok(!JSON.stringify(r).includes(wrong));
    });

    it('persistent 500s: MODEL_SERVER_ERROR after 2 attempts; a wrong model: MODEL_NOT_FOUND; a dead endpoint: MODEL_UNREACHABLE with the network error', async () => {
      guarded.inject('/v1/chat/completions', { kind: 'server_error' }, 2);
      const five = await t.run('Anything?', { model: client(guarded.baseURL) });
      assert.deepEqual([five.release.reason, five.release.failure?.attempts, five.counts.model_calls, five.ledger.retries], ['MODEL_SERVER_ERROR', 2, 2, 1]);
      assert.match(five.release.detail!, /failed on its side \(HTTP 500: “internal error”\), after 2 attempts\. Wait a little and try again\.$/);

      guarded.inject('/v1/chat/completions', { kind: 'model_not_found' });
      const nf = await t.run('Anything?', { model: client(guarded.baseURL) });
      assert.equal(nf.release.reason, 'MODEL_NOT_FOUND');
      assert.match(nf.release.detail!, /does not know the model or the URL \(HTTP 404: “The model `deepseek-v4-flash` does not exist.*Check the chat model name \(DOCQA_CHAT_MODEL\) and the base URL \(DOCQA_CHAT_BASE_URL\)\.$/);

      const dead = await new FakeOpenAIServer().start();
      const url = dead.baseURL;
      await dead.close();
      const un = await t.run('Anything?', { model: client(url) });
      assert.deepEqual([un.release.reason, un.release.failure?.network_error, un.release.failure?.attempts], ['MODEL_UNREACHABLE', 'ECONNREFUSED', 2]);
      assert.match(un.release.detail!, /^The chat model deepseek-v4-flash at 127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\), after 2 attempts\. Check the chat base URL \(DOCQA_CHAT_BASE_URL\) and the network\.$/);

      // A port fetch refuses before connecting (the e2e found "could not be reached" with no reason): named, not retried.
      const blocked = await t.run('Anything?', { model: client('http://127.0.0.1:9/v1') });
      assert.deepEqual([blocked.release.reason, blocked.release.failure?.network_error, blocked.release.failure?.attempts], ['MODEL_UNREACHABLE', 'ERR_BAD_PORT', 1]);
      assert.match(blocked.release.detail!, /could not be reached \(ERR_BAD_PORT\), after 1 attempt\. Its port is one that browsers and Node refuse to connect to .* change the chat base URL \(DOCQA_CHAT_BASE_URL\)\.$/);
    });

    it('a technical failure after verified progress is still FAILED with its reason (never hidden as insufficient evidence); the progress stays in the result', async () => {
      guarded.scriptChat(act('scan_term', { term: 'cell' }), () => {
        guarded.inject('/v1/chat/completions', { kind: 'server_error' }, 2);
        return act('scan_term', { term: 'nucleus' }, { id: 'call-1', gain: 'GAINED' });
      });
      const r = await t.run('Tell me about cells', { model: client(guarded.baseURL) });
      assert.deepEqual([r.release.status, r.release.reason, r.answer], ['FAILED', 'MODEL_SERVER_ERROR', null]);
      assert.equal(r.progress.facts.length, 2);
    });
  });

  it('only blocks whose full text reached the model are citable; a scan_term snippet is removed as snippet_only; the stream carries raw refs, the citations event the verdict', async () => {
    let searched = '';
    let scanned = '';
    t.server.scriptChat(
      act('search_blocks', { query: 'Calvin cycle sugar' }),
      (body) => {
        searched = lastObservation(body).payload!.blocks![0]!.ref;
        return act('scan_term', { term: 'cell' }, { id: 'call-1', gain: 'GAINED' });
      },
      (body) => {
        scanned = lastObservation(body).payload!.hits!.find((h) => h.ref !== searched)!.ref;
        return finish(`Sugar is built in the Calvin cycle【来源:${searched}】; cells have walls【来源:${scanned}】.`);
      },
    );
    const events: AgentEvent[] = [];
    const r = await t.run('What does the Calvin cycle make?', { onEvent: (e) => events.push(e) });
    assert.equal(r.release.status, 'SUCCESS');
    assert.deepEqual(r.citations.map((c) => c.ref), [searched]);
    assert.deepEqual(r.removed_citations, [{ ref: scanned, reason: 'snippet_only' }]);
    assert.equal(r.answer, `Sugar is built in the Calvin cycle【来源:${searched}】; cells have walls.`);
    const streamed = events.flatMap((e) => (e.type === 'answer_delta' ? [e.text] : [])).join('');
    assert.ok(streamed.includes(scanned), 'the streamed text is raw, unchecked');
    const kinds = events.map((e) => e.type);
    assert.equal(kinds.indexOf('citations'), kinds.length - 2);
    const verdict = events.find((e) => e.type === 'citations') as Extract<AgentEvent, { type: 'citations' }>;
    assert.deepEqual([verdict.verified.map((c) => c.ref), verdict.removed], [[searched], [{ ref: scanned, reason: 'snippet_only' }]]);
  });

  it('query embeddings are counted as embedding tokens: the provider’s usage, else our estimate marked as such', async () => {
    const { snapshot, embedding } = await t.hybrid();
    t.server.scriptChat(act('search_blocks', { query: 'microscope slide' }), act('search_blocks', { query: 'cell wall' }, { id: 'call-1', gain: 'GAINED' }), finish('Use a microscope.'));
    const start = t.server.requests.length;
    const r = await t.run('How to look at cells?', { snapshot, embedQuery: queryEmbedderFor(snapshot.manifest.embedding, embedding, '') });
    const billed = t.server.requests.slice(start).filter((q) => q.path === '/v1/embeddings').reduce((n, q) => n + (q.body.input as string[]).reduce((m, x) => m + Math.ceil(x.length / 4), 0), 0);
    assert.deepEqual([r.tokens.embedding, r.tokens.estimated.embedding, r.ledger.embedding_tokens], [billed, false, billed]);
    assert.ok(billed > 0);

    t.server.embeddingUsage = false;
    try {
      t.server.scriptChat(act('search_blocks', { query: 'microscope slide' }), finish('Use a microscope.'));
      const e = await t.run('How to look at cells?', { snapshot, embedQuery: queryEmbedderFor(snapshot.manifest.embedding, embedding, '') });
      assert.deepEqual([e.tokens.estimated.embedding, e.ledger.estimated, e.tokens.embedding], [true, true, countTokens('microscope slide')]);
    } finally {
      t.server.embeddingUsage = true;
    }
  });
});
