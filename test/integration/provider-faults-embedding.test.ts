import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { runAgent } from '../../src/harness/agent-loop';
import { RunLimits } from '../../src/harness/run-limits';
import { ChatClient, ChatConfig } from '../../src/harness/model-client';
import type { RemoteEmbeddingConfig } from '../../src/index/embed/embedding-client';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { hybridSearch } from '../../src/index/search/hybrid-search';
import { addSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { loadActiveSnapshot, readActiveId } from '../../src/index/store/snapshot-store';
import { queryEmbedderFor } from '../../src/tools/query-embedder';
import { type Fault, FakeOpenAIServer } from '../fakes/openai-server';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { type AgentSetup, act, lastObservation, recordingTracer, useAgentSetup } from './agent-setup';

/**
 * Embedding provider faults (issue 24 item 1), through the fake server over real HTTP, at both places
 * embeddings are made: an index build (a transient fault is retried once and the build activates; a
 * lasting one fails the document, and the snapshot that lost it is not activated — the previous one
 * stays active and loads) and a question's query embedding (the search fails after the same one
 * retry, never a second one by the harness, and the run is released FAILED, never with an answer that
 * rests on nothing). Requests are counted on the server's log.
 */
const KEY = 'sk-faults-embedding-key-7731';
const twice = (f: Fault): Fault[] => [f, f];

interface Row {
  fault: string;
  faults: Fault[];
  /** Embedding requests that reach the server for one text. */
  requests: number;
  /** null: the retry succeeds; else the failure's sentence. */
  fails: RegExp | null;
  refused?: boolean;
  /** The pause before the retry (Retry-After honoured, else the policy's). */
  delay?: number;
}

const ROWS: Row[] = [
  { fault: '429 with Retry-After: 1 (seconds), once', faults: [{ kind: 'rate_limit', retryAfterSeconds: 1 }], requests: 2, fails: null, delay: 1000 },
  { fault: '429 with Retry-After as an HTTP-date already past, once', faults: [{ kind: 'rate_limit', retryAfterDateIn: -5 }], requests: 2, fails: null, delay: 0 },
  { fault: '429 without Retry-After, twice', faults: twice({ kind: 'rate_limit' }), requests: 2, fails: /is rate-limiting the requests \(HTTP 429: “Rate limit reached”\), after 2 attempts\./ },
  { fault: '429 asking for 120 s, beyond the 2 s limit', faults: [{ kind: 'rate_limit', retryAfterSeconds: 120 }], requests: 1, fails: /\(HTTP 429: “Rate limit reached”\), after 1 attempt; it asked to retry after 120 s, more than the 2 s DocQA waits\./ },
  { fault: '429 asking for a minute (HTTP-date), beyond the limit', faults: [{ kind: 'rate_limit', retryAfterDateIn: 60 }], requests: 1, fails: /after 1 attempt; it asked to retry after (59|60) s, more than the 2 s DocQA waits\./ },
  { fault: '500 once', faults: [{ kind: 'server_error', status: 500 }], requests: 2, fails: null, delay: 10 },
  { fault: '500 twice', faults: twice({ kind: 'server_error', status: 500 }), requests: 2, fails: /failed on its side \(HTTP 500: “internal error”\), after 2 attempts\./ },
  { fault: '502 twice', faults: twice({ kind: 'server_error', status: 502 }), requests: 2, fails: /failed on its side \(HTTP 502: “bad gateway”\), after 2 attempts\./ },
  { fault: '503 once', faults: [{ kind: 'server_error', status: 503 }], requests: 2, fails: null },
  { fault: '503 twice', faults: twice({ kind: 'server_error', status: 503 }), requests: 2, fails: /failed on its side \(HTTP 503: “service unavailable: the server is overloaded”\), after 2 attempts\./ },
  { fault: '504 twice', faults: twice({ kind: 'server_error', status: 504 }), requests: 2, fails: /failed on its side \(HTTP 504: “gateway timeout”\), after 2 attempts\./ },
  { fault: 'connection reset, once', faults: [{ kind: 'reset' }], requests: 2, fails: null },
  { fault: 'connection reset, twice', faults: twice({ kind: 'reset' }), requests: 2, fails: /could not be reached \(UND_ERR_SOCKET\), after 2 attempts\./ },
  { fault: 'connection refused (the server is down)', faults: [], refused: true, requests: 0, fails: /could not be reached \(ECONNREFUSED\), after 2 attempts\./ },
  { fault: 'no answer past the timeout, once', faults: [{ kind: 'hang' }], requests: 2, fails: null },
  { fault: 'no answer past the timeout, twice', faults: twice({ kind: 'hang' }), requests: 2, fails: /did not answer in time, after 2 attempts\./ },
  { fault: 'malformed JSON, once', faults: [{ kind: 'malformed_json' }], requests: 2, fails: null },
  { fault: 'malformed JSON, twice', faults: twice({ kind: 'malformed_json' }), requests: 2, fails: /sent an answer that is not what an OpenAI-compatible service sends, after 2 attempts\./ },
  { fault: 'a body cut mid-answer, once', faults: [{ kind: 'truncated_stream' }], requests: 2, fails: null },
  { fault: 'a body cut mid-answer, twice', faults: twice({ kind: 'truncated_stream' }), requests: 2, fails: /cut its answer off before the end \(UND_ERR_SOCKET\), after 2 attempts\./ },
  { fault: 'a text longer than the model’s context', faults: [{ kind: 'context_length' }], requests: 1, fails: /refused a request longer than the model’s context \(HTTP 400: “This model's maximum context length is 8192 tokens.*”\), after 1 attempt\./ },
  { fault: 'an empty answer (no vectors)', faults: [{ kind: 'empty_completion' }], requests: 1, fails: /sent an answer that is not what an OpenAI-compatible service sends, after 1 attempt\./ },
  { fault: 'HTTP 200 with an error body, once', faults: [{ kind: 'error_body' }], requests: 2, fails: null },
  { fault: 'HTTP 200 with an error body, twice', faults: twice({ kind: 'error_body' }), requests: 2, fails: /sent an answer that is not what an OpenAI-compatible service sends \(“The upstream provider failed to answer”\), after 2 attempts\./ },
  { fault: 'HTTP 200 with an error body naming 503, twice', faults: twice({ kind: 'error_body', status: 503 }), requests: 2, fails: /failed on its side \(HTTP 503: “The upstream provider failed to answer”\), after 2 attempts\./ },
  { fault: '400 (a rejected request)', faults: [{ kind: 'status', status: 400, message: 'dimensions is not supported' }], requests: 1, fails: /rejected the request \(HTTP 400: “dimensions is not supported”\), after 1 attempt\./ },
  { fault: '401 (a wrong key)', faults: [{ kind: 'unauthorized' }], requests: 1, fails: /rejected the API key \(HTTP 401: “Authentication Fails: incorrect API key provided: \[REDACTED\]”\), after 1 attempt\./ },
  { fault: '403 (a key without access)', faults: [{ kind: 'status', status: 403, message: 'Forbidden' }], requests: 1, fails: /rejected the API key \(HTTP 403: “Forbidden”\), after 1 attempt\./ },
  { fault: '404 (an unknown model)', faults: [{ kind: 'model_not_found' }], requests: 1, fails: /does not know the model or the URL \(HTTP 404: .*\), after 1 attempt\./ },
];

const title = (r: Row) => `${r.fault} → ${r.fails ? `fails after ${r.requests} request(s)` : 'retried once, then works'}`;
const embeddingRequests = (s: FakeOpenAIServer) => s.requests.filter((q) => q.path === '/v1/embeddings').length;

/** Runs `fn` while nothing listens on the server's port (connection refused), then listens again. */
async function whileDown<T>(server: FakeOpenAIServer, fn: () => Promise<T>): Promise<T> {
  const port = Number(new URL(server.baseURL).port);
  await server.close();
  try {
    return await fn();
  } finally {
    await server.start(port);
  }
}

describe('embedding faults during an index build: never a half-built snapshot activated', () => {
  let server: FakeOpenAIServer;
  let dir: DataDir;
  let notes: string;
  let config: RemoteEmbeddingConfig;
  const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, null);
  let revision = 0;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    config = { provider: 'openai-compatible', base_url: server.baseURL, model: 'fake-embed', dimensions: 16, batch_size: 64, concurrency: 1, timeout_ms: 1500, retry_delay_ms: 10, max_retry_after_ms: 2000 };
    dir = new DataDir(tempDir('docqa-faults-store-'));
    notes = tempDir('docqa-faults-notes-');
    for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(notes, `note-${i}.md`), `# Note ${i}\n\nThe stable words of note ${i}: keeper${i}.\n`);
    await addSources(dir, [notes]);
    const first = await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: config, embeddingApiKey: KEY, pool });
    assert.equal(first.activated, true);
  });
  after(async () => {
    await pool.close();
    await server.close();
  });

  for (const row of ROWS) {
    it(title(row), async () => {
      // One changed note: one text to embed, one batch.
      revision++;
      const text = `Revision ${revision}: the word marker${revision} is new here.`;
      fs.writeFileSync(path.join(notes, 'note-0.md'), `# Note 0\n\n${text}\n`);
      const activeBefore = await readActiveId(dir);
      for (const f of row.faults) server.inject('/v1/embeddings', f);
      const sent = embeddingRequests(server);
      const build = () => buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: config, embeddingApiKey: KEY, pool });
      const r = row.refused ? await whileDown(server, build) : await build();
      assert.equal(embeddingRequests(server) - sent, row.requests, 'requests that reached the server');
      const active = await loadActiveSnapshot(dir);
      assert.ok(active, 'an active snapshot loads');
      if (!row.fails) {
        assert.deepEqual([r.activated, r.manifest.failed_documents, r.manifest.stats.embedding_requests], [true, [], 2]);
        assert.equal(active.manifest.id, r.manifest.id);
        assert.ok(hybridSearch(active.bm25, active.vectors, `marker${revision}`, null, 5).length > 0, 'the new text is searchable');
        recordTrials({ area: 'provider faults', fault: `embeddings, during a build: ${row.fault}`, trials: 1, outcome: 'retried once; the build activates' }, __filename);
        return;
      }
      assert.equal(r.activated, false, 'a snapshot that lost a document to the endpoint is not activated');
      assert.equal(active.manifest.id, activeBefore, 'the previous snapshot stays active');
      assert.ok(hybridSearch(active.bm25, active.vectors, 'keeper1', null, 5).length > 0, 'and answers');
      assert.deepEqual(r.manifest.failed_documents.map((f) => [path.basename(f.path), f.stage, f.code]), [['note-0.md', 'embed', 'upstream_unavailable']]);
      const message = r.manifest.failed_documents[0]!.message;
      assert.match(message, /^The embedding model fake-embed at 127\.0\.0\.1:\d+ /);
      assert.match(message, row.fails);
      assert.ok(!message.includes(KEY));
      recordTrials({ area: 'provider faults', fault: `embeddings, during a build: ${row.fault}`, trials: 1, outcome: `the document fails in words after ${row.requests} request(s); the new snapshot is not activated, the previous one stays active` }, __filename);
    });
  }
});

describe('embedding faults during a question: one retry in all, then FAILED in words, never an answer resting on nothing', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  // The chat model on a server of its own, so the embedding server can go down alone.
  let chat: FakeOpenAIServer;
  let model: ChatClient;
  before(async () => {
    chat = await new FakeOpenAIServer().start();
    model = new ChatClient(ChatConfig.parse({ base_url: chat.baseURL, idle_timeout_ms: 5000, total_timeout_ms: 10_000 }), 'sk-chat');
  });
  after(async () => {
    assert.deepEqual(chat.scriptErrors, []);
    await chat.close();
  });
  beforeEach(() => {
    t = setup();
  });

  for (const row of ROWS) {
    it(title(row), async () => {
      const { snapshot, embedding } = await t.hybrid();
      const config: RemoteEmbeddingConfig = { ...embedding, timeout_ms: 1500, retry_delay_ms: 10, max_retry_after_ms: 2000 };
      for (const f of row.faults) t.server.inject('/v1/embeddings', f);
      let observed = '';
      chat.scriptChat(act('search_blocks', { query: 'light microscope' }), (body) => {
        const o = lastObservation(body);
        observed = o.payload?.error ? `${o.payload.error.code} retryable=${o.payload.error.retryable}` : 'hits';
        // A model that answers anyway: with hits it cites one, without them it has nothing to cite.
        return o.payload?.error ? 'Thought: the search failed.\nAction: Finish[Use a light microscope, as everyone knows.]' : 'Thought: found.\nAction: Finish[Use a light microscope【来源:{{ref:1}}】.]';
      });
      const sent = embeddingRequests(t.server);
      const rec = recordingTracer();
      const run = () => runAgent({ question: 'How do I look at cells?', snapshot, model, bundle: t.bundle, run: RunLimits.parse({}), embedQuery: queryEmbedderFor(snapshot.manifest.embedding, config, KEY), tracer: rec.tracer });
      const r = row.refused ? await whileDown(t.server, run) : await run();
      assert.equal(embeddingRequests(t.server) - sent, row.requests, 'embedding requests: the client’s one retry, none by the harness');
      assert.equal(r.counts.tool_calls, 1);
      assert.equal(r.ledger.retries, rec.spans('retry').length);
      assert.ok(!JSON.stringify(r).includes(KEY));
      if (!row.fails) {
        assert.equal(observed, 'hits');
        assert.deepEqual([r.release.status, r.citations.length, r.ledger.retries], ['SUCCESS', 1, 1]);
        if (row.delay !== undefined) assert.deepEqual(rec.spans('retry').map((x) => [x.name, x.attributes.delay_ms]), [['retry query embedding', row.delay]]);
        recordTrials({ area: 'provider faults', fault: `embeddings, during a question: ${row.fault}`, trials: 1, outcome: 'the search retried once; SUCCESS with a verified citation' }, __filename);
        return;
      }
      assert.equal(observed, 'upstream_unavailable retryable=false');
      assert.deepEqual([r.release.status, r.release.reason, r.answer], ['FAILED', 'UPSTREAM_UNAVAILABLE', null]);
      assert.match(r.release.detail!, /^The embedding model fake at 127\.0\.0\.1:\d+ /);
      assert.match(r.release.detail!, row.fails);
      assert.match(r.release.detail!, /The model's answer cited nothing verified, so it is not given\.$/);
      assert.equal(r.release.failure?.provider, 'embedding');
      recordTrials({ area: 'provider faults', fault: `embeddings, during a question: ${row.fault}`, trials: 1, outcome: `FAILED UPSTREAM_UNAVAILABLE after ${row.requests} request(s); the uncited answer is withheld` }, __filename);
    });
  }

  it('an answer that cites what another tool verified is released, with the failed search named in it', async () => {
    const { snapshot, embedding } = await t.hybrid();
    t.server.inject('/v1/embeddings', { kind: 'server_error', status: 503 }, 2);
    chat.scriptChat(
      act('search_blocks', { query: 'light microscope' }),
      act('list_documents', {}),
      (body) => act('list_blocks', { doc_id: (lastObservation(body).payload as unknown as { documents: Array<{ doc_id: string }> }).documents[0]!.doc_id }, { id: 'call-2', gain: 'GAINED' }),
      'Thought: read it whole.\nAction: Finish[Use a light microscope【来源:{{ref:1}}】.]',
    );
    const r = await runAgent({ question: 'How do I look at cells?', snapshot, model, bundle: t.bundle, run: RunLimits.parse({}), embedQuery: queryEmbedderFor(snapshot.manifest.embedding, { ...embedding, retry_delay_ms: 10 }, KEY) });
    assert.deepEqual([r.release.status, r.citations.length], ['SUCCESS', 1]);
    assert.match(r.answer!, /\n\n\(Note: a search could not run, so this answer may miss something: The embedding model fake at 127\.0\.0\.1:\d+ failed on its side \(HTTP 503: “service unavailable: the server is overloaded”\), after 2 attempts\. Wait a little and try again\.\)$/);
    recordTrials({ area: 'provider faults', fault: 'embeddings, during a question: 503 twice, the answer citing blocks another tool read', trials: 1, outcome: 'SUCCESS with the failed search named in a note' }, __filename);
  });
});
