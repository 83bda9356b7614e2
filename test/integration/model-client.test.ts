import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChatClient, ChatConfig, ChatError } from '../../src/harness/model-client';
import { FakeOpenAIServer } from '../fakes/openai-server';

const KEY = 'sk-chat-planted-key-31337';

describe('ChatClient against a local OpenAI-compatible server (streaming)', () => {
  let server: FakeOpenAIServer;
  let config: ChatConfig;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    // Generous deadlines: a loaded CI machine must not turn a slow chunk into a timeout; the deadline test sets its own.
    config = ChatConfig.parse({ base_url: server.baseURL, idle_timeout_ms: 5000, total_timeout_ms: 20_000 });
  });
  after(() => server.close());
  const messages = [
    { role: 'system' as const, content: 'You answer.' },
    { role: 'user' as const, content: 'Hello?' },
  ];

  it('streams the answer in order, returns the finish reason and the API usage with DeepSeek cache fields', async () => {
    server.scriptChat('Thought: enough.\nAction: Finish[Hello, learner.]');
    const deltas: string[] = [];
    const before = server.requests.length;
    const r = await new ChatClient(config, KEY).complete(messages, { onDelta: (d) => deltas.push(d) });
    assert.equal(r.content, 'Thought: enough.\nAction: Finish[Hello, learner.]');
    assert.equal(deltas.join(''), r.content);
    assert.ok(deltas.length > 1, 'it really streamed');
    assert.equal(r.finish_reason, 'stop');
    assert.ok(r.usage && r.usage.prompt_tokens > 0 && r.usage.completion_tokens > 0);
    assert.equal(r.usage?.prompt_cache_miss_tokens, r.usage?.prompt_tokens);
    const body = server.requests[before]!.body;
    assert.deepEqual([body.model, body.stream, body.thinking, body.temperature, (body.stream_options as { include_usage: boolean }).include_usage], ['deepseek-v4-flash', true, { type: 'disabled' }, 0, true]);
  });

  it('thinking mode: sent explicitly, reasoning kept apart from the answer, temperature not sent', async () => {
    server.scriptChat({ content: 'The answer.', reasoning: 'Let me think about the blocks first.' });
    const before = server.requests.length;
    const r = await new ChatClient({ ...config, thinking: 'enabled' }, KEY).complete(messages);
    assert.deepEqual([r.content, r.reasoning], ['The answer.', 'Let me think about the blocks first.']);
    const body = server.requests[before]!.body;
    assert.deepEqual(body.thinking, { type: 'enabled' });
    assert.equal('temperature' in body, false);
  });

  it('a stream that ends without a finish reason is truncated (retryable), never a short answer; what arrived is kept for the budget', async () => {
    server.scriptChat('This answer will be cut off somewhere in the middle of its text.');
    server.inject('/v1/chat/completions', { kind: 'truncated_stream' });
    await assert.rejects(new ChatClient(config, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.kind === 'truncated' && e.retryable && e.streamed !== null && e.streamed.content.length > 0);
    // An error before any answer began (HTTP 500) spent nothing.
    server.inject('/v1/chat/completions', { kind: 'server_error' });
    await assert.rejects(new ChatClient(config, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.streamed === null);
  });

  it('a per-call output cap is sent as max_tokens, never above the configured maximum', async () => {
    server.scriptChat('Thought: a.\nAction: Finish[b]', 'Thought: a.\nAction: Finish[b]');
    const before = server.requests.length;
    await new ChatClient(config, KEY).complete(messages, { maxOutputTokens: 77 });
    await new ChatClient(config, KEY).complete(messages, { maxOutputTokens: 1_000_000 });
    assert.deepEqual(server.requests.slice(before).map((r) => r.body.max_tokens), [77, 4096]);
  });

  it('a stream that goes silent ends at the idle deadline; a server that never answers too', async () => {
    server.scriptChat('Some words and then silence for a long while, longer than any deadline.');
    server.inject('/v1/chat/completions', { kind: 'stalled_stream' });
    const short = { ...config, idle_timeout_ms: 300 };
    await assert.rejects(new ChatClient(short, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.kind === 'idle_timeout' && e.retryable);
    server.inject('/v1/chat/completions', { kind: 'hang' });
    await assert.rejects(new ChatClient(short, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.kind === 'idle_timeout');
  });

  it('classifies errors: context length and a bad key are final, 429 and 500 are retryable; the key never shows', async () => {
    server.inject('/v1/chat/completions', { kind: 'context_length' });
    await assert.rejects(new ChatClient(config, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.kind === 'context_length' && !e.retryable);
    server.inject('/v1/chat/completions', { kind: 'rate_limit', retryAfterSeconds: 1 });
    await assert.rejects(new ChatClient(config, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.kind === 'rate_limited' && e.retryable);
    server.inject('/v1/chat/completions', { kind: 'server_error' });
    await assert.rejects(new ChatClient(config, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.kind === 'server_error' && e.retryable);
    await assert.rejects(new ChatClient(config, 'sk-wrong-0000').complete(messages), (e: unknown) => {
      assert.ok(e instanceof ChatError && e.kind === 'auth' && !e.retryable);
      assert.ok(!e.message.includes('sk-wrong') && !JSON.stringify(e).includes('sk-wrong'));
      // What a person needs, as data: the service, host and port, status, its own words with the key taken out.
      assert.deepEqual(e.failure, {
        provider: 'chat',
        kind: 'auth',
        endpoint: new URL(server.baseURL).host,
        model: 'deepseek-v4-flash',
        status: 401,
        network_error: null,
        provider_message: 'Authentication Fails: incorrect API key provided: [REDACTED]',
        attempts: 1,
        retryable: false,
        action: 'check_key',
        retry_after_refused: null,
      });
      return true;
    });
  });

  it('one call is one HTTP request whatever fails: the SDK’s own retries are off, the retry policy is the harness’s', async () => {
    for (const f of [{ kind: 'server_error' }, { kind: 'rate_limit', retryAfterSeconds: 0 }, { kind: 'reset' }, { kind: 'server_error', status: 503 }] as const) {
      server.inject('/v1/chat/completions', f);
      const before = server.requests.length;
      await assert.rejects(new ChatClient(config, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.retryable);
      assert.equal(server.requests.length - before, 1, `${f.kind}: one request`);
    }
    // A 429's Retry-After travels with the error, for the policy.
    server.inject('/v1/chat/completions', { kind: 'rate_limit', retryAfterSeconds: 7 });
    await assert.rejects(new ChatClient(config, KEY).complete(messages), (e: unknown) => e instanceof ChatError && e.retryAfterMs === 7000);
  });

  it('cancellation mid-stream rejects with the caller’s AbortError', async () => {
    server.scriptChat('A long answer that will be interrupted by the user pressing stop in the editor.');
    server.inject('/v1/chat/completions', { kind: 'stalled_stream' });
    const ac = new AbortController();
    const p = new ChatClient({ ...config, idle_timeout_ms: 5000 }, KEY).complete(messages, { signal: ac.signal, onDelta: () => ac.abort() });
    await assert.rejects(p, (e: unknown) => (e as Error).name === 'AbortError');
  });
});
