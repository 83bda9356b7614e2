import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EmbeddingClient, EmbeddingConfig, EmbeddingError, type RemoteEmbeddingConfig } from '../../src/index/embed/embedding-client';
import { FakeOpenAIServer } from '../fakes/openai-server';

const KEY = 'sk-test-embedding-key-0123456789';

describe('EmbeddingClient against a local OpenAI-compatible server', () => {
  let server: FakeOpenAIServer;
  let config: RemoteEmbeddingConfig;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: KEY, dimensions: 32 }).start();
    config = EmbeddingConfig.parse({ provider: 'openai-compatible', base_url: server.baseURL, model: 'fake-embed', dimensions: 16, batch_size: 3, concurrency: 2, timeout_ms: 400, max_retry_after_ms: 2000 }) as RemoteEmbeddingConfig;
  });
  after(() => server.close());

  it('embeds in batches, in order, with the requested dimensions and the usage tokens', async () => {
    const start = server.requests.length;
    const texts = ['alpha beta', 'gamma', 'delta epsilon', '光合作用', 'alpha beta', 'zeta', 'eta'];
    const r = await new EmbeddingClient(config, KEY).embed(texts);
    assert.equal(r.vectors.length, 7);
    assert.ok(r.vectors.every((v) => v.length === 16));
    assert.deepEqual(Array.from(r.vectors[0]!), Array.from(r.vectors[4]!), 'same text, same vector, position kept');
    const reqs = server.requests.slice(start);
    assert.equal(reqs.length, 3, '7 texts in batches of 3');
    assert.ok(reqs.every((q) => q.body.dimensions === 16 && q.body.encoding_format === 'float' && q.body.model === 'fake-embed' && q.authorized));
    assert.equal(r.tokens, texts.reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0));
    assert.equal(r.requests, 3);
  });

  it('retries a 429 once, after its Retry-After', async () => {
    server.inject('/v1/embeddings', { kind: 'rate_limit', retryAfterSeconds: 1 });
    const r = await new EmbeddingClient({ ...config, batch_size: 10 }, KEY).embed(['one']);
    assert.equal(r.requests, 2);
    assert.equal(r.vectors.length, 1);
  });

  it('gives up on a Retry-After longer than it may wait', async () => {
    server.inject('/v1/embeddings', { kind: 'rate_limit', retryAfterSeconds: 120 });
    await assert.rejects(new EmbeddingClient(config, KEY).embed(['one']), (e: unknown) => e instanceof EmbeddingError && e.retryable && /retry after 120 s/.test(e.message));
  });

  it('retries a 500 once and fails with a retryable upstream_unavailable when it repeats', async () => {
    server.inject('/v1/embeddings', { kind: 'server_error' });
    assert.equal((await new EmbeddingClient(config, KEY).embed(['x'])).requests, 2);
    server.inject('/v1/embeddings', { kind: 'server_error' }, 2);
    const before = server.requests.length;
    await assert.rejects(new EmbeddingClient(config, KEY).embed(['x']), (e: unknown) => e instanceof EmbeddingError && e.code === 'upstream_unavailable' && e.retryable && e.status === 500 && e.failure?.attempts === 2);
    assert.equal(server.requests.length - before, 2, 'exactly one retry');
  });

  it('ends a hanging request at its deadline, and a malformed body counts as transient', async () => {
    server.inject('/v1/embeddings', { kind: 'hang' }, 2);
    await assert.rejects(new EmbeddingClient(config, KEY).embed(['x']), (e: unknown) => e instanceof EmbeddingError && /longer than 400 ms|too slow/.test(e.message));
    server.inject('/v1/embeddings', { kind: 'malformed_json' });
    assert.equal((await new EmbeddingClient(config, KEY).embed(['x'])).requests, 2);
  });

  it('does not retry a rejected key, and never puts the key in the error', async () => {
    const before = server.requests.length;
    await assert.rejects(new EmbeddingClient(config, 'sk-wrong-key-abcdef').embed(['x']), (e: unknown) => {
      assert.ok(e instanceof EmbeddingError && !e.retryable && e.status === 401);
      assert.ok(!e.message.includes('sk-wrong-key-abcdef') && !JSON.stringify(e).includes('sk-wrong'));
      assert.deepEqual([e.failure?.provider, e.failure?.kind, e.failure?.endpoint, e.failure?.attempts, e.failure?.provider_message], ['embedding', 'auth', new URL(server.baseURL).host, 1, 'Authentication Fails: incorrect API key provided: [REDACTED]']);
      return true;
    });
    assert.equal(server.requests.length - before, 1);
  });

  it('stops when cancelled', async () => {
    server.inject('/v1/embeddings', { kind: 'hang' });
    const ac = new AbortController();
    const p = new EmbeddingClient({ ...config, timeout_ms: 10_000 }, KEY).embed(['x'], ac.signal);
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(p, (e: unknown) => (e as Error).name === 'AbortError');
  });

  it('validates its configuration', () => {
    assert.throws(() => EmbeddingConfig.parse({ provider: 'openai-compatible', base_url: 'not a url', model: 'm' }));
    assert.deepEqual(EmbeddingConfig.parse({ provider: 'none' }), { provider: 'none' });
  });
});
