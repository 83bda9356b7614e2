import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { BuildEvent } from '../../src/app/build-job';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { ChatConfig, ChatError } from '../../src/harness/model-client';
import { OllamaChatClient } from '../../src/harness/ollama-chat';
import { FakeLmStudioServer } from '../fakes/lmstudio-server';
import { FakeOllamaServer } from '../fakes/ollama-server';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';

const MODELS = [
  { name: 'qwen3:8b', kind: 'chat' as const, contextLength: 40_960, thinking: true },
  { name: 'llama3.2:3b', kind: 'chat' as const, contextLength: 131_072 },
  { name: 'nomic-embed-text', kind: 'embedding' as const, contextLength: 2048, embeddingLength: 48 },
];

const ollamaSettings = (base: string, o: { chat?: string; embedding?: string | null; dims?: number | null } = {}) =>
  AppSettings.parse({
    chat: { base_url: base, model: o.chat ?? 'qwen3:8b', idle_timeout_ms: 5000, total_timeout_ms: 20_000 },
    embedding: o.embedding === null ? { provider: 'none' } : { provider: 'openai-compatible', base_url: base, model: o.embedding ?? 'nomic-embed-text', dimensions: o.dims ?? null },
  });
const newApp = (settings: AppSettings, dataDir = path.join(tempDir('docqa-localconn-'), 'data')) => new DocQaApp({ dataDir, settings, keys: fixedKeys(undefined, undefined), appVersion: 'test' });

describe('local models: Test Connection, the model lists, what leaves the machine', () => {
  it('Test Connection on Ollama loads the chat model with the window DocQA will ask for, and says the window, the budget and the load in words; the embedding side says its window', async () => {
    const server = await new FakeOllamaServer({ models: MODELS, auto: true }).start();
    try {
      const app = newApp(ollamaSettings(server.baseURL));
      const chat = await app.testConnection('chat');
      assert.equal(chat.ok, true, chat.detail);
      assert.equal(chat.called, 'POST /api/chat (1 output token, num_ctx)');
      assert.deepEqual([chat.local?.server, chat.local?.version, chat.local?.window?.served, chat.local?.window?.max_context_tokens], ['ollama', '0.12.6', 40_960, 34_133]);
      assert.ok(chat.local!.load_ms !== null, 'it loaded the model first');
      assert.match(chat.detail, /^The chat model qwen3:8b at 127\.0\.0\.1:\d+ answered in \d+ ms\. Served by Ollama 0\.12\.6 on this machine or network\. It loaded qwen3:8b first, in \d+\.\d s\. Context budget 34,133 \(100,000 configured\): Ollama serves qwen3:8b with num_ctx 40,960/);
      assert.deepEqual(server.loads, [{ model: 'qwen3:8b', window: 40_960 }]);
      const emb = await app.testConnection('embedding');
      assert.equal(emb.ok, true, emb.detail);
      assert.deepEqual([emb.dimensions, emb.local?.embedding_window, emb.rebuild], [48, 2048, null]);
      assert.match(emb.detail, /Served by Ollama 0\.12\.6 on this machine or network\. It embeds at most 2,048 tokens of a text\.$/);
    } finally {
      await server.close();
    }
  });

  it('Test Connection: a window too small for DocQA is said, an LM Studio model is loaded just in time and its loaded window read; a model the server lacks is named with what it has', async () => {
    const lm = await new FakeLmStudioServer({ models: [{ id: 'small-llm', type: 'llm', max_context_length: 32_768 }], loadContext: 4096, auto: true }).start();
    const ollama = await new FakeOllamaServer({ models: MODELS, auto: true }).start();
    try {
      const r = await newApp(ollamaSettings(lm.baseURL, { chat: 'small-llm', embedding: null })).testConnection('chat');
      assert.equal(r.ok, true, r.detail);
      assert.deepEqual([r.local?.server, r.local?.window?.served, r.local?.window?.source], ['lmstudio', 4096, 'loaded']);
      assert.match(r.detail, /A 4,096-token window leaves little room for evidence after DocQA's own prompt .*load the model with at least 8,192 tokens in LM Studio/);
      const missing = await newApp(ollamaSettings(ollama.baseURL, { chat: 'mistral' })).testConnection('chat');
      assert.equal(missing.ok, false);
      assert.match(missing.detail, /Ollama at 127\.0\.0\.1:\d+ has no model mistral; its chat models: llama3\.2:3b, qwen3:8b\./);
      assert.equal(ollama.requests.filter((q) => q.path === '/api/chat').length, 0);
    } finally {
      await lm.close();
      await ollama.close();
    }
  });

  it('another embedding model than the active snapshot\'s is a rebuild, said before anything is sent; a local Ollama embeds without asking, and says so; a plain server on loopback is still asked', async () => {
    const server = await new FakeOllamaServer({ models: [...MODELS, { name: 'mxbai-embed-large', kind: 'embedding', contextLength: 512, embeddingLength: 48 }], auto: true }).start();
    const plain = await new FakeOpenAIServer({ auto: true, dimensions: 16 }).start();
    try {
      const notes = tempDir('docqa-localnotes-');
      fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(notes, 'cells.md'));
      const data = path.join(tempDir('docqa-localconn-'), 'data');
      const app = newApp(ollamaSettings(server.baseURL), data);
      await app.addSources([notes]);
      const events: BuildEvent[] = [];
      let asked = 0;
      const r = await (await app.startBuild({ onEvent: (e) => events.push(e), confirmEgress: async () => (asked++, true) })).done;
      assert.equal(r?.activated, true);
      assert.equal(asked, 0, 'a local Ollama is not asked about');
      const told = events.find((e) => e.type === 'egress_local');
      assert.deepEqual(told && { ...told, build_id: '' }, { type: 'egress_local', build_id: '', host: server.baseURL.replace('http://', '').replace('/v1', ''), model: 'nomic-embed-text', sources: [path.basename(notes)], files: 1, blocks: r!.manifest.stats.blocks, tokens: told!.tokens });
      assert.equal(await app.embeddingChange(), null, 'same model, same size: no rebuild');

      // Another model: the rebuild is said before a build, from the model's details (nothing embedded to find out).
      const before = server.embeddedInputs.length;
      app.updateSettings(ollamaSettings(server.baseURL, { embedding: 'mxbai-embed-large' }));
      assert.match((await app.embeddingChange())!, /^This is a rebuild: the active snapshot's vectors come from nomic-embed-text \(48 dimensions\), another model, so all \d+ blocks are embedded again before it is searched\.$/);
      app.updateSettings(ollamaSettings(server.baseURL, { embedding: 'nomic-embed-text', dims: 24 }));
      assert.match((await app.embeddingChange())!, /vectors come from nomic-embed-text \(48 dimensions\) and nomic-embed-text gives 24/);
      assert.equal(server.embeddedInputs.length, before, 'nothing was sent to find out');
      const test = await app.testConnection('embedding');
      assert.match(test.rebuild!, /This is a rebuild/);
      assert.match(test.detail, /This is a rebuild/);

      // The same on a plain OpenAI-compatible server on loopback (it could be a tunnel to a cloud): asked.
      const other = newApp(ollamaSettings(plain.baseURL, { embedding: 'fake-embed' }), path.join(tempDir('docqa-localconn-'), 'data'));
      await other.addSources([notes]);
      let asked2 = 0;
      const events2: BuildEvent[] = [];
      await (await other.startBuild({ onEvent: (e) => events2.push(e), confirmEgress: async () => (asked2++, true) })).done;
      assert.equal(asked2, 1);
      assert.equal(events2.filter((e) => e.type === 'egress_local').length, 0);
      recordTrials({ area: 'egress', fault: 'embedding endpoint on loopback: a recognised local server is told, any other server asked', trials: 2, outcome: 'told for Ollama, asked for the plain server', data_lost: 'none' }, __filename);
    } finally {
      await server.close();
      await plain.close();
    }
  });

  it('the model list: chat and embedding models apart, each with its window and size (Ollama, LM Studio); a plain OpenAI-compatible service lists what it has, kinds unknown', async () => {
    const ollama = await new FakeOllamaServer({ models: MODELS }).start();
    const lm = await new FakeLmStudioServer({ models: [{ id: 'qwen3-8b', type: 'llm', max_context_length: 32_768, loaded: 8192 }, { id: 'text-embedding-nomic-embed-text-v1.5', type: 'embeddings', max_context_length: 2048 }] }).start();
    const plain = await new FakeOpenAIServer().start();
    try {
      const o = await newApp(ollamaSettings(ollama.baseURL)).listModels('chat');
      assert.deepEqual([o.server, o.chat.map((m) => m.id), o.embedding.map((m) => m.id), o.unknown.length], ['ollama', ['llama3.2:3b', 'qwen3:8b'], ['nomic-embed-text:latest'], 0]);
      assert.deepEqual([o.chat[1]!.model_max, o.chat[1]!.thinking, o.embedding[0]!.embedding_length], [40_960, true, 48]);
      const l = await newApp(ollamaSettings(lm.baseURL, { chat: 'qwen3-8b', embedding: null })).listModels('embedding');
      assert.deepEqual([l.server, l.chat.map((m) => [m.id, m.loaded, m.running_context, m.model_max]), l.embedding.map((m) => m.id)], ['lmstudio', [['qwen3-8b', true, 8192, 32_768]], ['text-embedding-nomic-embed-text-v1.5']]);
      await assert.rejects(newApp(ollamaSettings(plain.baseURL, { embedding: null })).listModels('chat'), /could not list the models at 127\.0\.0\.1:\d+/);
    } finally {
      await ollama.close();
      await lm.close();
      await plain.close();
    }
  });

  it('Ollama\'s own chat API: a model that cannot be loaded with the window names the window and the budget; an error inside the stream, a stream cut before "done", and a missing model are ChatErrors in the usual words', async () => {
    const server = await new FakeOllamaServer({ models: MODELS }).start();
    try {
      const client = (model = 'qwen3:8b') => new OllamaChatClient(ChatConfig.parse({ base_url: server.baseURL, model, idle_timeout_ms: 2000, total_timeout_ms: 5000 }), '', { root: server.root, numCtx: 40_960, canThink: false });
      const ask = (c = client()) => c.complete([{ role: 'user', content: 'hello' }]).then(
        () => assert.fail('expected a failure'),
        (e: unknown) => e as ChatError,
      );
      server.inject('/api/chat', { kind: 'status', status: 500, message: 'model requires more system memory (21.3 GiB) than is available (15.2 GiB)' });
      const memory = await ask();
      assert.deepEqual([memory.kind, memory.retryable, memory.failure?.status], ['rejected', false, 500]);
      assert.match(memory.message, /Ollama could not load qwen3:8b with the 40,960-token window DocQA asked for \(num_ctx, from the context budget\): model requires more system memory .*; lower the context budget, or use a smaller model/);
      server.inject('/api/chat', { kind: 'reset' });
      const reset = await ask();
      assert.deepEqual([reset.kind, reset.retryable], ['unreachable', true]);
      const missing = await ask(client('gone:latest'));
      assert.deepEqual([missing.kind, missing.failure?.action], ['not_found', 'check_model']);
      server.scriptChat('a reply');
      const ok = await client().complete([{ role: 'user', content: 'hello' }]);
      assert.deepEqual([ok.content, ok.finish_reason, ok.usage !== null], ['a reply', 'stop', true]);
      recordTrials({ area: 'provider faults', fault: "Ollama's own chat API: out of memory for the window, reset, missing model", trials: 3, outcome: 'ChatError with the window and the setting named; retried only when transient' }, __filename);
    } finally {
      await server.close();
    }
  });
});
