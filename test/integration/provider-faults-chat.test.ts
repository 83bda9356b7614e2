import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { runAgent } from '../../src/harness/agent-loop';
import { RunLimits } from '../../src/harness/run-limits';
import { ChatClient, ChatConfig } from '../../src/harness/model-client';
import { type Fault, FakeOpenAIServer } from '../fakes/openai-server';
import { recordTrials } from '../reliability/trials';
import { type AgentSetup, recordingTracer, useAgentSetup } from './agent-setup';

/**
 * Chat provider faults (issue 24 item 1), each through the fake server over real HTTP and the whole
 * harness: what the run releases, how many requests reached the server, and the retry's pause. A
 * transient fault is retried once; a second one, or a final one, releases FAILED with the failure in
 * words — never an answer the model did not give.
 */
const KEY = 'sk-faults-chat-key-004217';
const ANSWER = 'Thought: done.\nAction: Finish[Cells are the unit of life.]';
const REPLY = 'Cells are the unit of life.';

type Outcome = { status: 'SUCCESS' } | { status: 'FAILED'; reason: string; attempts: number; detail: RegExp };
interface Row {
  fault: string;
  faults: Fault[];
  /** Replies queued for the attempts that read one (a cut or stalled stream does). */
  script?: string[];
  outcome: Outcome;
  requests: number;
  /** The pause the retry span records. */
  delay?: number;
  /** Point the client at a port where nothing listens. */
  refused?: boolean;
}

const twice = (f: Fault): Fault[] => [f, f];
const ok: Outcome = { status: 'SUCCESS' };
const failed = (reason: string, attempts: number, detail: RegExp): Outcome => ({ status: 'FAILED', reason, attempts, detail });

const ROWS: Row[] = [
  { fault: '429 with Retry-After: 1 (seconds), once', faults: [{ kind: 'rate_limit', retryAfterSeconds: 1 }], script: [ANSWER], outcome: ok, requests: 2, delay: 1000 },
  { fault: '429 with Retry-After as an HTTP-date already past, once', faults: [{ kind: 'rate_limit', retryAfterDateIn: -5 }], script: [ANSWER], outcome: ok, requests: 2, delay: 0 },
  { fault: '429 without Retry-After, once', faults: [{ kind: 'rate_limit' }], script: [ANSWER], outcome: ok, requests: 2, delay: 10 },
  { fault: '429 without Retry-After, twice', faults: twice({ kind: 'rate_limit' }), outcome: failed('MODEL_RATE_LIMITED', 2, /is rate-limiting the requests \(HTTP 429: “Rate limit reached”\), after 2 attempts\. Wait a little and try again\.$/), requests: 2 },
  { fault: '429 asking for 120 s (Retry-After seconds), beyond the 2 s limit', faults: [{ kind: 'rate_limit', retryAfterSeconds: 120 }], outcome: failed('MODEL_RATE_LIMITED', 1, /\(HTTP 429: “Rate limit reached”\), after 1 attempt; it asked to retry after 120 s, more than the 2 s DocQA waits\. Wait a little and try again\.$/), requests: 1 },
  { fault: '429 asking for a minute (Retry-After HTTP-date), beyond the limit', faults: [{ kind: 'rate_limit', retryAfterDateIn: 60 }], outcome: failed('MODEL_RATE_LIMITED', 1, /after 1 attempt; it asked to retry after (59|60) s, more than the 2 s DocQA waits\./), requests: 1 },
  { fault: '500 once', faults: [{ kind: 'server_error', status: 500 }], script: [ANSWER], outcome: ok, requests: 2, delay: 10 },
  { fault: '500 twice', faults: twice({ kind: 'server_error', status: 500 }), outcome: failed('MODEL_SERVER_ERROR', 2, /failed on its side \(HTTP 500: “internal error”\), after 2 attempts\. Wait a little and try again\.$/), requests: 2 },
  { fault: '502 twice', faults: twice({ kind: 'server_error', status: 502 }), outcome: failed('MODEL_SERVER_ERROR', 2, /failed on its side \(HTTP 502: “bad gateway”\), after 2 attempts\./), requests: 2 },
  { fault: '503 once', faults: [{ kind: 'server_error', status: 503 }], script: [ANSWER], outcome: ok, requests: 2 },
  { fault: '503 twice', faults: twice({ kind: 'server_error', status: 503 }), outcome: failed('MODEL_SERVER_ERROR', 2, /\(HTTP 503: “service unavailable: the server is overloaded”\), after 2 attempts\./), requests: 2 },
  { fault: '504 twice', faults: twice({ kind: 'server_error', status: 504 }), outcome: failed('MODEL_SERVER_ERROR', 2, /\(HTTP 504: “gateway timeout”\), after 2 attempts\./), requests: 2 },
  { fault: 'connection reset before an answer, once', faults: [{ kind: 'reset' }], script: [ANSWER], outcome: ok, requests: 2 },
  { fault: 'connection reset before an answer, twice', faults: twice({ kind: 'reset' }), outcome: failed('MODEL_UNREACHABLE', 2, /could not be reached \(UND_ERR_SOCKET\), after 2 attempts\. Check the chat base URL \(DOCQA_CHAT_BASE_URL\) and the network\.$/), requests: 2 },
  { fault: 'connection refused (nothing listens)', faults: [], refused: true, outcome: failed('MODEL_UNREACHABLE', 2, /could not be reached \(ECONNREFUSED\), after 2 attempts\. Check the chat base URL/), requests: 0 },
  { fault: 'no answer past the idle timeout, once', faults: [{ kind: 'hang' }], script: [ANSWER], outcome: ok, requests: 2 },
  { fault: 'no answer past the idle timeout, twice', faults: twice({ kind: 'hang' }), outcome: failed('MODEL_IDLE_TIMEOUT', 2, /did not answer in time, after 2 attempts\. Wait a little and try again\.$/), requests: 2 },
  { fault: 'a stream that stalls mid-answer past the idle timeout, twice', faults: twice({ kind: 'stalled_stream' }), script: [ANSWER, ANSWER], outcome: failed('MODEL_IDLE_TIMEOUT', 2, /did not answer in time, after 2 attempts/), requests: 2 },
  { fault: 'malformed JSON in the stream, once', faults: [{ kind: 'malformed_json' }], script: [ANSWER], outcome: ok, requests: 2 },
  { fault: 'malformed JSON in the stream, twice', faults: twice({ kind: 'malformed_json' }), outcome: failed('MODEL_BAD_RESPONSE', 2, /sent an answer that is not what an OpenAI-compatible service sends, after 2 attempts\./), requests: 2 },
  { fault: 'a stream cut mid-answer, once', faults: [{ kind: 'truncated_stream' }], script: [ANSWER, ANSWER], outcome: ok, requests: 2 },
  { fault: 'a stream cut mid-answer, twice', faults: twice({ kind: 'truncated_stream' }), script: [ANSWER, ANSWER], outcome: failed('MODEL_TRUNCATED', 2, /cut its answer off before the end, after 2 attempts\. Wait a little and try again\.$/), requests: 2 },
  { fault: 'the connection dies mid-answer, once', faults: [{ kind: 'truncated_stream', abrupt: true }], script: [ANSWER, ANSWER], outcome: ok, requests: 2 },
  { fault: 'the connection dies mid-answer, twice', faults: twice({ kind: 'truncated_stream', abrupt: true }), script: [ANSWER, ANSWER], outcome: failed('MODEL_TRUNCATED', 2, /cut its answer off before the end \(UND_ERR_SOCKET\), after 2 attempts\./), requests: 2 },
  { fault: 'context length exceeded, as OpenAI sends it (code context_length_exceeded)', faults: [{ kind: 'context_length', dialect: 'openai' }], outcome: failed('MODEL_CONTEXT_LENGTH', 1, /refused a request longer than the model’s context \(HTTP 400: “This model's maximum context length is 128000 tokens\..*”\), after 1 attempt\. Ask a narrower question or lower the context budget\.$/), requests: 1 },
  { fault: 'context length exceeded, as DeepSeek sends it (generic code, the words)', faults: [{ kind: 'context_length', dialect: 'deepseek' }], outcome: failed('MODEL_CONTEXT_LENGTH', 1, /refused a request longer than the model’s context \(HTTP 400: “This model's maximum context length is 131072 tokens\./), requests: 1 },
  { fault: 'an empty completion, once', faults: [{ kind: 'empty_completion' }], script: [ANSWER], outcome: ok, requests: 2 },
  { fault: 'an empty completion, twice', faults: twice({ kind: 'empty_completion' }), outcome: failed('MODEL_EMPTY_ANSWER', 2, /sent an empty answer, after 2 attempts\. Wait a little and try again\.$/), requests: 2 },
  { fault: 'HTTP 200 with an error body (JSON), once', faults: [{ kind: 'error_body', as: 'json' }], script: [ANSWER], outcome: ok, requests: 2 },
  { fault: 'HTTP 200 with an error body (JSON), twice', faults: twice({ kind: 'error_body', as: 'json' }), outcome: failed('MODEL_BAD_RESPONSE', 2, /sent an answer that is not what an OpenAI-compatible service sends \(“The upstream provider failed to answer”\), after 2 attempts\./), requests: 2 },
  { fault: 'HTTP 200 with an error event in the stream, twice', faults: twice({ kind: 'error_body', as: 'sse' }), outcome: failed('MODEL_BAD_RESPONSE', 2, /\(“The upstream provider failed to answer”\), after 2 attempts\./), requests: 2 },
  { fault: 'HTTP 200 with an error event naming 503, twice', faults: twice({ kind: 'error_body', as: 'sse', status: 503 }), outcome: failed('MODEL_SERVER_ERROR', 2, /failed on its side \(HTTP 503: “The upstream provider failed to answer”\), after 2 attempts\./), requests: 2 },
  { fault: '400 (a rejected request)', faults: [{ kind: 'status', status: 400, message: 'Invalid parameter: thinking' }], outcome: failed('MODEL_REJECTED', 1, /rejected the request \(HTTP 400: “Invalid parameter: thinking”\), after 1 attempt\./), requests: 1 },
  { fault: '401 (a wrong key)', faults: [{ kind: 'unauthorized' }], outcome: failed('MODEL_AUTH', 1, /rejected the API key \(HTTP 401: “Authentication Fails: incorrect API key provided: \[REDACTED\]”\), after 1 attempt\./), requests: 1 },
  { fault: '403 (a key without access)', faults: [{ kind: 'status', status: 403, message: 'Forbidden' }], outcome: failed('MODEL_AUTH', 1, /rejected the API key \(HTTP 403: “Forbidden”\), after 1 attempt\./), requests: 1 },
  { fault: '404 (an unknown model)', faults: [{ kind: 'model_not_found' }], outcome: failed('MODEL_NOT_FOUND', 1, /does not know the model or the URL \(HTTP 404: .*\), after 1 attempt\./), requests: 1 },
];

describe('chat provider faults: every fault has one defined outcome, the run never releases an answer it did not get', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  let deadURL: string;
  beforeEach(() => {
    t = setup();
  });
  before(async () => {
    const dead = await new FakeOpenAIServer().start();
    deadURL = dead.baseURL;
    await dead.close();
  });
  const console_ = { ...console };
  const written: unknown[] = [];
  before(() => {
    // The core never writes to the console (the SDK logs an unparsable chunk unless told not to).
    for (const k of ['log', 'info', 'warn', 'error', 'debug'] as const) console[k] = (...a: unknown[]) => void written.push(a);
  });
  after(() => Object.assign(console, console_));

  for (const row of ROWS) {
    it(`${row.fault} → ${row.outcome.status === 'SUCCESS' ? `SUCCESS after ${row.requests} request(s)` : `${row.outcome.reason} after ${row.outcome.attempts} attempt(s)`}`, async () => {
      const config = ChatConfig.parse({ base_url: row.refused ? deadURL : t.server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 20_000, retry_delay_ms: 10, max_retry_after_ms: 2000 });
      written.length = 0;
      for (const f of row.faults) t.server.inject('/v1/chat/completions', f);
      t.server.scriptChat(...(row.script ?? []));
      const before = t.server.requests.length;
      const rec = recordingTracer();
      const r = await runAgent({ question: 'What is a cell?', snapshot: t.snap, model: new ChatClient(config, KEY), bundle: t.bundle, run: RunLimits.parse({}), tracer: rec.tracer });
      assert.equal(t.server.requests.length - before, row.requests, 'requests that reached the server');
      assert.equal(r.counts.model_calls, row.outcome.status === 'SUCCESS' ? row.requests : row.outcome.attempts);
      assert.ok(!JSON.stringify(r).includes(KEY), 'the key is nowhere in the result');
      if (row.outcome.status === 'SUCCESS') {
        assert.deepEqual([r.release.status, r.answer, r.ledger.retries], ['SUCCESS', REPLY, row.requests - 1]);
        if (row.delay !== undefined) assert.deepEqual(rec.spans('retry').map((s) => s.attributes.delay_ms), [row.delay]);
      } else {
        const o = row.outcome;
        assert.deepEqual([r.release.status, r.release.reason, r.answer, r.release.failure?.attempts], ['FAILED', o.reason, null, o.attempts]);
        assert.match(r.release.detail!, o.detail);
        assert.match(r.release.detail!, /^The chat model deepseek-v4-flash at 127\.0\.0\.1:\d+ /);
      }
      assert.deepEqual(written, [], 'nothing was written to the console');
      const outcome = row.outcome.status === 'SUCCESS' ? `SUCCESS with the model's answer, ${row.requests} requests` : `FAILED ${row.outcome.reason} after ${row.outcome.attempts} attempt(s), no answer`;
      recordTrials({ area: 'provider faults', fault: `chat: ${row.fault}`, trials: 1, outcome }, __filename);
    });
  }
});
