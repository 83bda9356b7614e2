import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ProviderFailure, actionFor, bodyErrorKind, connectionFailure, connectionKind, describeFailure, endpointOf, errorInBody, httpKind, isLoopback, networkErrorCode, tidyMessage } from '../../src/common/provider-failure';

describe('provider failures', () => {
  it('name the endpoint by host and port, the default port included', () => {
    assert.deepEqual([endpointOf('https://api.deepseek.com'), endpointOf('http://127.0.0.1:8080/v1'), endpointOf('http://example.org/v1'), endpointOf('not a url')], ['api.deepseek.com:443', '127.0.0.1:8080', 'example.org:80', 'not a url']);
    assert.deepEqual([isLoopback('http://127.0.0.1:9/v1'), isLoopback('http://localhost/v1'), isLoopback('http://[::1]:3000'), isLoopback('https://api.deepseek.com')], [true, true, true, false]);
  });

  it('tell TLS problems, timeouts and unreachable hosts apart by the network code on the cause chain', () => {
    const wrapped = Object.assign(new Error('Connection error.'), { cause: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }) }) });
    assert.equal(networkErrorCode(wrapped), 'CERT_HAS_EXPIRED');
    assert.deepEqual(['CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ECONNREFUSED', 'ENOTFOUND', null].map(connectionKind), ['tls', 'tls', 'tls', 'tls', 'timeout', 'timeout', 'unreachable', 'unreachable', 'unreachable']);
  });

  it('classify HTTP statuses; a 400 about context length is its own kind; only transient ones retry', () => {
    assert.deepEqual([401, 403, 402, 404, 429, 500, 503, 408, 422].map((s) => httpKind(s, 'x')), [
      { kind: 'auth', retryable: false },
      { kind: 'auth', retryable: false },
      { kind: 'balance', retryable: false },
      { kind: 'not_found', retryable: false },
      { kind: 'rate_limited', retryable: true },
      { kind: 'server_error', retryable: true },
      { kind: 'server_error', retryable: true },
      { kind: 'server_error', retryable: true },
      { kind: 'rejected', retryable: false },
    ]);
    assert.deepEqual(httpKind(400, "This model's maximum context length is 131072 tokens."), { kind: 'context_length', retryable: false });
  });

  it('read as one sentence that says what happened and what to change, with the host’s own setting names', () => {
    const f: ProviderFailure = { provider: 'embedding', kind: 'tls', endpoint: 'emb.example.org:443', model: 'text-embedding-v4', status: null, network_error: 'CERT_HAS_EXPIRED', provider_message: null, attempts: 1, retryable: false, action: actionFor('tls'), retry_after_refused: null };
    assert.equal(describeFailure(f), 'The embedding model text-embedding-v4 at emb.example.org:443 could not be reached securely (TLS certificate problem) (CERT_HAS_EXPIRED), after 1 attempt. Check the embedding base URL (DOCQA_EMBEDDING_BASE_URL): its certificate is not trusted here.');
    const vs = describeFailure({ ...f, kind: 'missing_key', network_error: null, attempts: 0, action: 'set_key' }, { key: 'DocQA: Set Embedding API Key', base_url: 'docqa.embedding.baseUrl', model: 'docqa.embedding.model' });
    assert.equal(vs, 'The embedding model text-embedding-v4 at emb.example.org:443 has no API key. Set the embedding API key (DocQA: Set Embedding API Key).');
    const wait = describeFailure({ ...f, kind: 'rate_limited', network_error: null, status: 429, provider_message: 'Rate limit reached', action: 'wait_and_retry', retry_after_refused: { asked_ms: 120_000, limit_ms: 30_000 } });
    assert.equal(wait, 'The embedding model text-embedding-v4 at emb.example.org:443 is rate-limiting the requests (HTTP 429: “Rate limit reached”), after 1 attempt; it asked to retry after 120 s, more than the 30 s DocQA waits. Wait a little and try again.');
  });

  it('tell a context-length error by OpenAI’s code or DeepSeek’s words, and errors sent inside a 200 answer by what they name', () => {
    assert.deepEqual(httpKind(400, 'Please reduce the length of the messages.', 'context_length_exceeded'), { kind: 'context_length', retryable: false });
    assert.deepEqual(httpKind(400, 'Invalid request', 'invalid_request_error'), { kind: 'rejected', retryable: false });
    assert.deepEqual(bodyErrorKind({ message: 'overloaded', status: 503, code: null }), { kind: 'server_error', retryable: true });
    assert.deepEqual(bodyErrorKind({ message: "This model's maximum context length is 65536 tokens", status: null, code: 'invalid_request_error' }), { kind: 'context_length', retryable: false });
    assert.deepEqual(bodyErrorKind({ message: 'upstream provider error', status: null, code: null }), { kind: 'bad_response', retryable: true });
    assert.deepEqual(errorInBody({ error: { message: 'busy', code: 429 } }), { message: 'busy', status: 429, code: null });
    assert.equal(errorInBody({ object: 'list', data: [] }), null);
  });

  it('retry a reset, a refused connection or a timeout, never a certificate problem or a host name that does not exist', () => {
    assert.deepEqual(['ECONNRESET', 'ECONNREFUSED', 'UND_ERR_SOCKET', 'ETIMEDOUT', 'EAI_AGAIN', null, 'ENOTFOUND', 'CERT_HAS_EXPIRED'].map((c) => connectionFailure(c).retryable), [true, true, true, true, true, true, false, false]);
  });

  it('keep a service message to one readable line', () => {
    assert.equal(tidyMessage('  a\n  b  '), 'a b');
    assert.equal(tidyMessage('x'.repeat(400))!.length, 300);
    assert.equal(tidyMessage(''), null);
  });
});
