import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelListing } from '../../src/app/local-models/model-list';
import type { LocalModel } from '../../src/app/local-models/local-server';
import { ChatEvent } from '../../src/shared/chat-protocol';
import { modelPickItems } from '../../src/vscode/model-pick-items';
import { localEgressWords } from '../../src/vscode/egress-model';
import { EN } from '../../webview/chat/strings-en';
import { ZH } from '../../webview/chat/strings-zh';
import { applyEvent, newTurn } from '../../webview/chat/turn-state';

const t = (m: string, ...a: Array<string | number>) => m.replace(/\{(\d+)\}/g, (_s, i: string) => String(a[Number(i)]));
const model = (id: string, o: Partial<LocalModel> = {}): LocalModel => ({ id, kind: 'chat', loaded: false, running_context: null, model_max: null, modelfile_num_ctx: null, embedding_length: null, thinking: false, details: null, ...o });

describe('local models in the views', () => {
  it('the model pick: chat and embedding models apart, the configured one first and checked (Ollama names qwen3 as qwen3:latest), windows and sizes in words', () => {
    const listing: ModelListing = {
      endpoint: '127.0.0.1:11434',
      server: 'ollama',
      version: '0.12.6',
      chat: [model('llama3.2:3b', { model_max: 131_072, details: '3.2B Q4_K_M' }), model('qwen3:latest', { model_max: 40_960, loaded: true, running_context: 40_960 })],
      embedding: [model('nomic-embed-text:latest', { kind: 'embedding', model_max: 2048, embedding_length: 768 })],
      unknown: [model('mystery', { kind: 'unknown' })],
    };
    const chat = modelPickItems(listing, 'chat', 'qwen3', t);
    assert.deepEqual(chat.map((i) => [i.label, i.description, i.detail]), [
      ['$(check) qwen3:latest', 'up to 40,960 tokens', 'loaded, with a 40,960-token window'],
      ['llama3.2:3b', '3.2B Q4_K_M · up to 131,072 tokens', ''],
      ['mystery', '', 'the service does not say what kind of model this is'],
    ]);
    const emb = modelPickItems(listing, 'embedding', null, t);
    assert.deepEqual(emb.map((i) => [i.id, i.description]), [['nomic-embed-text:latest', 'up to 2,048 tokens · 768 dimensions']], 'a local server says which are embedding models: no unknown ones');
    const plain = modelPickItems({ ...listing, server: null, chat: [], embedding: [], unknown: [model('deepseek-v4-flash', { kind: 'unknown' })] }, 'embedding', null, t);
    assert.deepEqual(plain.map((i) => i.id), ['deepseek-v4-flash'], 'a plain service: everything, in both picks');
  });

  it('the chat panel shows the load while it waits and the window in the ledger, in English and Chinese', () => {
    const loading = { type: 'model_loading' as const, server: 'ollama' as const, model: 'qwen3:8b', window: 40_960, timeout_ms: 300_000 };
    assert.equal(ChatEvent.safeParse({ type: 'ask_event', conversation_id: 'c1', turn_id: 't1', event: loading }).success, true, 'the protocol carries it to the webview');
    let live = applyEvent(newTurn('t1', 'q', 'en', 0), loading, 1);
    assert.deepEqual(live.loading, loading);
    live = applyEvent(live, { type: 'run_started', run_id: 'r', snapshot_id: 's', lang: 'en', prompt_bundle: { id: 'b', version: '1', hash: 'h' } }, 2);
    assert.equal(live.loading, null, 'the run has started: the load is over');
    assert.equal(EN.modelLoading('Ollama', 'qwen3:8b', 300), 'Ollama is loading qwen3:8b; the first answer waits for it (up to 300 s)…');
    assert.match(ZH.modelLoading('Ollama', 'qwen3:8b', 300), /Ollama 正在加载 qwen3:8b/);
    assert.equal(EN.ledgerWindow('Ollama', 'qwen3:8b', '40,960', '100,000', '34,133', true, true), "context budget 34,133, lowered from 100,000: Ollama serves qwen3:8b with a 40,960-token window (num_ctx, its maximum), 20% of it kept for the model's own tokenizer");
    assert.match(ZH.ledgerWindow('LM Studio', 'm', '8,192', '100,000', '6,826', true, false), /上下文预算 6,826（原设 100,000）：LM Studio 以 8,192 tokens 的窗口运行 m（加载时设定）/);
  });

  it('a local embedding server is told, not asked, in words that say nothing leaves the machine', () => {
    assert.equal(localEgressWords({ host: '127.0.0.1:11434', model: 'nomic-embed-text', sources: ['notes'], files: 3, blocks: 40, tokens: 12_345 }, t), 'DocQA: 3 files (40 blocks, about 12,345 tokens) of “notes” are embedded by nomic-embed-text at 127.0.0.1:11434, on this machine: nothing leaves it.');
  });
});
