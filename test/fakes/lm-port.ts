import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from '../../src/common/tokenizer';
import { ChatClient, ChatConfig } from '../../src/harness/model-client';
import { type LmPort, type LmRefusal, type Translate, asWritten } from '../../src/vscode/lm-chat-model';
import type { FakeOpenAIServer } from './openai-server';

/**
 * A VS Code language model as the adapter (src/vscode/lm-chat-model.ts) sees it, served by the fake
 * OpenAI server over real HTTP: its text streamed back in pieces, the abort signal ending the request,
 * or a LanguageModelError (as an LmRefusal) thrown before anything is sent.
 */
export function fakeLmPort(server: FakeOpenAIServer, refuse?: LmRefusal, o: { id?: string; name?: string } = {}): LmPort & { counted: number } {
  const id = o.id ?? 'fake-model';
  const client = new ChatClient(ChatConfig.parse({ base_url: server.baseURL, model: id }), '');
  const port = {
    id,
    vendor: 'test',
    name: o.name ?? 'Fake Model',
    maxInputTokens: 64_000,
    counted: 0,
    async *send(messages: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>, signal: AbortSignal | undefined) {
      if (refuse) throw refuse;
      assert.ok(messages.every((m) => m.role === 'user' || m.role === 'assistant'), 'no system role reaches the Language Model API');
      const r = await client.complete(messages, { signal });
      for (let i = 0; i < r.content.length; i += 7) yield r.content.slice(i, i + 7);
    },
    async countTokens(text: string) {
      port.counted++;
      return countTokens(text);
    },
  };
  return port;
}

/** vscode.l10n.t as VS Code runs it in Simplified Chinese: the extension's own l10n bundle, placeholders filled. */
export function zhTranslate(): Translate {
  const bundle = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
  return (message, ...args) => asWritten(bundle[message] ?? message, ...args);
}
