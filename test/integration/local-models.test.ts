import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { AskEvent } from '../../src/app/ask';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { runAgent } from '../../src/harness/agent-loop';
import { Budgets } from '../../src/harness/budget';
import { RunLimits } from '../../src/harness/run-limits';
import { ChatClient, ChatConfig } from '../../src/harness/model-client';
import { baselineDir, loadBundle } from '../../src/harness/prompt-bundle';
import { loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { readTrace } from '../../src/trace/trace-store';
import { FakeLmStudioServer } from '../fakes/lmstudio-server';
import { FakeOllamaServer } from '../fakes/ollama-server';
import { observationsOf } from '../fakes/scripted-replies';
import { fixture, tempDir } from '../helpers';
import { makeCli } from './cli';
import { recordTrials } from '../reliability/trials';

const QUESTION = 'How do Vue plugins get installed?';

/** Turn 1 lists the documents; turn 2 asks for every block of the plugins page; turn 3 finishes with what it has. */
const script = [
  'Thought: see what there is.\nAction: list_documents[{"input": {}}]',
  (body: Record<string, unknown>) => {
    const last = observationsOf(body).at(-1) as { tool_call_id: string; payload: { documents: Array<{ doc_id: string; title: string }> } };
    const doc = last.payload.documents.find((d) => /plugin/i.test(d.title))!;
    return `Thought: read it all.\nAction: list_blocks[${JSON.stringify({ input: { doc_id: doc.doc_id }, previous_observation: { tool_call_id: last.tool_call_id, information_gain: 'GAINED' } })}]`;
  },
  'Thought: the page did not fit.\nAction: Finish[The notes could not be read whole within the context window.]',
];

describe('local models: Ollama and LM Studio behind the chat base URL', () => {
  const data = path.join(tempDir('docqa-local-'), 'data');
  const settings = (baseUrl: string, model: string, budgets: Partial<Budgets> = {}) =>
    AppSettings.parse({ chat: { base_url: baseUrl, model, idle_timeout_ms: 5000, total_timeout_ms: 20_000 }, embedding: { provider: 'none' }, run: { budgets: Budgets.parse(budgets) } });
  const app = (s: AppSettings) => new DocQaApp({ dataDir: data, settings: s, keys: fixedKeys(undefined, undefined), appVersion: 'test' });

  before(async () => {
    // One keyword-only snapshot of the fixtures, shared by every app below (same data directory).
    const a = app(AppSettings.parse({ embedding: { provider: 'none' } }));
    await a.addSources([fixture('markdown')]);
    const r = await (await a.startBuild({ confirmEgress: async () => true })).done;
    assert.equal(r?.activated, true);
  });

  it('Ollama: DocQA asks its own chat API for a window that holds the budget (num_ctx with every request), loads the model first and says so; the ledger and the trace say why', async () => {
    const server = await new FakeOllamaServer({ models: [{ name: 'qwen3:8b', kind: 'chat', contextLength: 131_072, thinking: true }, { name: 'nomic-embed-text', kind: 'embedding', contextLength: 2048, embeddingLength: 64 }], auto: true }).start();
    try {
      const events: AskEvent[] = [];
      const run = await app(settings(server.baseURL, 'qwen3:8b')).ask({ question: QUESTION }, { onEvent: (e) => events.push(e) });
      assert.equal(run.result.release.status, 'SUCCESS');
      assert.deepEqual(events[0], { type: 'model_loading', server: 'ollama', model: 'qwen3:8b', window: 120_000, timeout_ms: 20_000 });
      assert.equal(events[1]!.type, 'run_started', 'the model is loaded before the run starts');
      const chats = server.requests.filter((r) => r.path === '/api/chat');
      assert.ok(chats.length >= 3, 'a load, then the turns');
      assert.deepEqual(chats.map((r) => (r.body.options as { num_ctx: number }).num_ctx), chats.map(() => 120_000));
      const turns = chats.filter((r) => (r.body.messages as unknown[]).length > 0);
      assert.deepEqual(turns.map((r) => r.body.think), turns.map(() => false), 'thinking is set explicitly for a model that can think');
      assert.equal(server.requests.filter((r) => r.path === '/v1/chat/completions').length, 0, 'never the endpoint that ignores the window');
      assert.deepEqual(server.loads, [{ model: 'qwen3:8b', window: 120_000 }]);
      assert.equal(server.cuts.length, 0);
      const w = run.result.ledger.context_window!;
      assert.deepEqual([w.server, w.configured, w.served, w.source, w.max_context_tokens, w.lowered, w.server_default], ['ollama', 100_000, 120_000, 'num_ctx', 100_000, false, null]);
      assert.match(w.reason, /Context budget 100,000 as configured: Ollama serves qwen3:8b with num_ctx 120,000, set by DocQA with each request .*without it Ollama would run the model with its default window/);
      assert.deepEqual(run.manifest.context_window, w);
      assert.equal(run.manifest.budgets.max_context_tokens, 100_000);
      await run.trace;
      const t = await readTrace(new DocQaApp({ dataDir: data, settings: AppSettings.parse({}), keys: fixedKeys(undefined, undefined), appVersion: 'test' }).dir, run.run_id);
      const span = t.spans.find((s) => s.kind === 'budget_decision' && s.name === 'context window')!;
      assert.deepEqual([span.attributes.check, span.attributes.served_window, span.attributes.decision, span.attributes.window_source], ['served_window', 120_000, 'kept', 'num_ctx']);
      assert.deepEqual(t.meta!.manifest.context_window, w);

      // The second question finds the model loaded with that window: no load, nothing said.
      const events2: AskEvent[] = [];
      await app(settings(server.baseURL, 'qwen3:8b')).ask({ question: QUESTION }, { onEvent: (e) => events2.push(e) });
      assert.equal(events2.filter((e) => e.type === 'model_loading').length, 0);
      assert.equal(server.loads.length, 1);
    } finally {
      await server.close();
    }
  });

  it('Ollama: a model whose maximum is below the budget lowers it; a result longer than the served window is refused by the harness, never sent to be cut, and the ledger and the trace say why', async () => {
    const server = await new FakeOllamaServer({ models: [{ name: 'qwen3-6k', kind: 'chat', contextLength: 6144, numCtx: 2048 }] }).start();
    try {
      server.scriptChat(...script);
      const run = await app(settings(server.baseURL, 'qwen3-6k')).ask({ question: QUESTION });
      assert.equal(server.scriptErrors.length, 0);
      const w = run.result.ledger.context_window!;
      assert.deepEqual([w.served, w.model_max, w.server_default, w.max_context_tokens, w.lowered], [6144, 6144, 2048, 5120, true]);
      assert.match(w.reason, /^Context budget 5,120 \(100,000 configured\): Ollama serves qwen3-6k with num_ctx 6,144, set by DocQA with each request, which is the model's maximum; without it Ollama would run the model with 2,048 and cut longer prompts silently/);
      assert.equal(run.result.ledger.max_context_tokens, 5120);
      assert.equal(run.manifest.budgets.finalization_reserve_tokens, 1280, 'the final answer reserve fits the lowered budget');
      // The whole page did not fit: the harness refused it (an Observation saying so), and no prompt was cut.
      const third = server.requests.filter((r) => r.path === '/api/chat' && (r.body.messages as unknown[]).length > 0)[2]!;
      assert.equal(observationsOf(third.body).at(-1)!.harness_status, 'context_budget_exceeded');
      assert.ok(server.served.length >= 3);
      assert.deepEqual(server.cuts, [], 'no prompt was longer than the window the model was served with');
      for (const s of server.served) assert.ok(s.read_tokens <= 6144 && s.window === 6144);
      assert.equal(run.result.answer, 'The notes could not be read whole within the context window.');
      await run.trace;
      const t = await readTrace(app(settings(server.baseURL, 'qwen3-6k')).dir, run.run_id);
      const windowSpan = t.spans.find((s) => s.kind === 'budget_decision' && s.name === 'context window')!;
      assert.deepEqual([windowSpan.attributes.decision, windowSpan.attributes.max_context_tokens, windowSpan.attributes.configured_context_tokens], ['lowered', 5120, 100_000]);
      const refused = t.spans.find((s) => s.kind === 'budget_decision' && s.attributes.decision !== 'lowered' && s.attributes.max_context_tokens === 5120 && s.attributes.reason === 'context_budget_exceeded');
      assert.ok(refused, 'the refused result is a budget decision against the lowered budget');
      recordTrials({ area: 'local models', fault: 'prompt longer than the window Ollama serves the model with', trials: 1, outcome: 'refused by the harness before sending; the budget line and the trace say why' }, __filename);
    } finally {
      await server.close();
    }
  });

  it('the fake Ollama cuts as Ollama does: the same run through its OpenAI-compatible endpoint, with the configured budget, is cut silently', async () => {
    const server = await new FakeOllamaServer({ models: [{ name: 'qwen3-6k', kind: 'chat', contextLength: 4096, numCtx: 2048 }] }).start();
    try {
      server.scriptChat(...script);
      const snapshot = (await loadActiveSnapshot(app(settings(server.baseURL, 'qwen3-6k')).dir))!;
      const result = await runAgent({
        question: QUESTION,
        snapshot,
        model: new ChatClient(ChatConfig.parse({ base_url: server.baseURL, model: 'qwen3-6k', idle_timeout_ms: 5000, total_timeout_ms: 20_000 }), ''),
        bundle: await loadBundle(path.join(baselineDir(), 'baseline-en')),
        run: RunLimits.parse({}),
      });
      assert.equal(result.release.status, 'SUCCESS', 'the answer looks fine');
      assert.ok(server.cuts.length >= 1, 'yet the model read a cut prompt');
      assert.ok(server.cuts.every((c) => c.path === '/v1/chat/completions' && c.window === 2048 && c.sent_tokens > 2048));
    } finally {
      await server.close();
    }
  });

  it('LM Studio: a model loaded just in time is loaded before the question, its loaded window read, and the budget clamped to it; nothing overflows', async () => {
    const server = await new FakeLmStudioServer({ models: [{ id: 'qwen3-8b', type: 'llm', max_context_length: 32_768 }, { id: 'text-embedding-nomic-embed-text-v1.5', type: 'embeddings', max_context_length: 2048 }], loadContext: 6144 }).start();
    try {
      server.scriptChat('ok', ...script);
      const events: AskEvent[] = [];
      const run = await app(settings(server.baseURL, 'qwen3-8b')).ask({ question: QUESTION }, { onEvent: (e) => events.push(e) });
      assert.deepEqual(events[0], { type: 'model_loading', server: 'lmstudio', model: 'qwen3-8b', window: null, timeout_ms: 20_000 });
      assert.deepEqual(server.loads, ['qwen3-8b']);
      const w = run.result.ledger.context_window!;
      assert.deepEqual([w.server, w.served, w.source, w.model_max, w.max_context_tokens, w.lowered], ['lmstudio', 6144, 'loaded', 32_768, 5120, true]);
      assert.match(w.reason, /LM Studio has qwen3-8b loaded with a 6,144-token window, which a request cannot change/);
      assert.deepEqual(server.overflows, []);
      assert.equal(run.result.answer, 'The notes could not be read whole within the context window.');
    } finally {
      await server.close();
    }
  });

  it('a model the server does not have, or an embedding model named as the chat model, is refused before anything is sent, with the models it has', async () => {
    const server = await new FakeOllamaServer({ models: [{ name: 'qwen3:8b', kind: 'chat', contextLength: 40_960 }, { name: 'nomic-embed-text', kind: 'embedding', contextLength: 2048, embeddingLength: 64 }] }).start();
    try {
      await assert.rejects(app(settings(server.baseURL, 'llama3.2')).ask({ question: QUESTION }), /Ollama at 127\.0\.0\.1:\d+ has no model llama3\.2; its chat models: qwen3:8b\. Pick one with `docqa models`, or `ollama pull llama3\.2`; nothing was sent/);
      await assert.rejects(app(settings(server.baseURL, 'nomic-embed-text')).ask({ question: QUESTION }), /nomic-embed-text at 127\.0\.0\.1:\d+ is an embedding model, not a chat model/);
      assert.equal(server.requests.filter((r) => r.path.includes('chat')).length, 0);
    } finally {
      await server.close();
    }
  });
});

describe('local models in the CLI', () => {
  it('docqa models lists chat and embedding models apart with the configured ones starred; docqa ask says the load on stderr and the budget line with its reason', async () => {
    const server = await new FakeOllamaServer({ models: [{ name: 'qwen3:8b', kind: 'chat', contextLength: 40_960 }, { name: 'nomic-embed-text', kind: 'embedding', contextLength: 2048, embeddingLength: 48 }], auto: true }).start();
    try {
      const cli = makeCli({ DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_MODEL: 'qwen3:8b', DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'nomic-embed-text' });
      const list = await cli.runAsync(['models']);
      assert.equal(list.code, 0, list.stderr);
      assert.equal(
        list.stdout,
        [
          `Ollama 0.12.6 at 127.0.0.1:${new URL(server.baseURL).port}`,
          'chat models (DOCQA_CHAT_MODEL):',
          '* qwen3:8b  8.0B Q4_K_M, max 40,960 tokens',
          'embedding models (DOCQA_EMBEDDING_MODEL):',
          '* nomic-embed-text:latest  137M Q4_K_M, max 2,048 tokens, 48 dimensions',
          '',
        ].join('\n'),
      );
      assert.equal((await cli.runAsync(['sources', 'add', fixture('markdown', 'cell-notes.md')])).code, 0);
      const index = await cli.runAsync(['index']);
      assert.equal(index.code, 0, index.stderr);
      assert.match(index.stderr, /docqa: 1 file \(\d+ blocks, about [\d,]+ tokens at most\) of “cell-notes\.md” will be embedded by nomic-embed-text at 127\.0\.0\.1:\d+, on this machine: nothing leaves it, so nothing is asked\./);
      const ask = await cli.runAsync(['ask', 'What is osmosis?']);
      assert.equal(ask.code, 0, ask.stderr);
      assert.match(ask.stderr, /^docqa: Ollama is loading qwen3:8b with a 40,960-token window; the first answer waits for it \(up to 300 s\)…$/m);
      assert.match(ask.stdout, /^context: largest prompt [\d,]+ of a 34,133-token budget — Context budget 34,133 \(100,000 configured\): Ollama serves qwen3:8b with num_ctx 40,960/m);
    } finally {
      await server.close();
    }
  });
});
