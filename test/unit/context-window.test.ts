import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOKENIZER_HEADROOM, decideWindow, ollamaNumCtx } from '../../src/app/local-models/context-window';
import { mayProbe, serverRoot } from '../../src/app/local-models/local-http';

describe('the context budget of a local model', () => {
  it('Ollama: num_ctx holds the configured budget with room for the model tokenizer, never above the model maximum', () => {
    assert.equal(TOKENIZER_HEADROOM, 1.2);
    assert.equal(ollamaNumCtx(100_000, 131_072), 120_000);
    assert.equal(ollamaNumCtx(100_000, 40_960), 40_960);
    assert.equal(ollamaNumCtx(16_000, null), 19_200);
    const kept = decideWindow(100_000, { server: 'ollama', model: 'qwen3:8b', modelMax: 131_072, serverDefault: 4096, loaded: null })!;
    assert.deepEqual([kept.served, kept.max_context_tokens, kept.lowered, kept.source], [120_000, 100_000, false, 'num_ctx']);
    assert.match(kept.reason, /without it Ollama would run the model with 4,096 and cut longer prompts silently/);
    const lowered = decideWindow(100_000, { server: 'ollama', model: 'qwen3:8b', modelMax: 40_960, serverDefault: null, loaded: null })!;
    assert.deepEqual([lowered.served, lowered.max_context_tokens, lowered.lowered], [40_960, 34_133, true]);
    assert.match(lowered.reason, /^Context budget 34,133 \(100,000 configured\): Ollama serves qwen3:8b with num_ctx 40,960, set by DocQA with each request, which is the model's maximum; without it Ollama would run the model with its default window/);
  });

  it('LM Studio: the budget is clamped to the loaded window (a request cannot change it); the maximum stands in only when the loaded window is not reported', () => {
    const loaded = decideWindow(100_000, { server: 'lmstudio', model: 'm', modelMax: 32_768, serverDefault: null, loaded: 8192 })!;
    assert.deepEqual([loaded.served, loaded.source, loaded.max_context_tokens, loaded.lowered], [8192, 'loaded', 6826, true]);
    assert.match(loaded.reason, /Load the model with a longer context length in LM Studio to raise it/);
    const old = decideWindow(4000, { server: 'lmstudio', model: 'm', modelMax: 32_768, serverDefault: null, loaded: null })!;
    assert.deepEqual([old.source, old.max_context_tokens, old.lowered], ['model_max', 4000, false]);
    assert.match(old.reason, /did not report the window m is loaded with/);
    assert.equal(decideWindow(4000, { server: 'lmstudio', model: 'm', modelMax: null, serverDefault: null, loaded: null }), null);
  });

  it('looks for a local server only on this machine or a private network, never on a public host', () => {
    for (const u of ['http://127.0.0.1:11434/v1', 'http://localhost:1234/v1', 'http://[::1]:11434', 'http://192.168.1.20:11434/v1', 'http://10.0.0.5:1234', 'http://172.20.0.2:11434', 'http://ollama:11434/v1', 'http://gpu-box.local:11434', 'http://[fd00::2]:11434']) assert.equal(mayProbe(u), true, u);
    for (const u of ['https://api.deepseek.com', 'https://api.openai.com/v1', 'http://172.32.0.1:11434', 'http://8.8.8.8:11434', 'not a url']) assert.equal(mayProbe(u), false, u);
    assert.equal(serverRoot('http://127.0.0.1:11434/v1'), 'http://127.0.0.1:11434');
    assert.equal(serverRoot('http://127.0.0.1:11434/v1/'), 'http://127.0.0.1:11434');
    assert.equal(serverRoot('http://127.0.0.1:11434'), 'http://127.0.0.1:11434');
    assert.equal(serverRoot('http://host/ollama/v1'), 'http://host/ollama');
  });
});
