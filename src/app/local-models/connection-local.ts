import { z } from 'zod';
import { errorMessage } from '../../common/errors';
import { ContextWindow, LocalServer, SERVER_NAMES } from '../../common/served-window';
import type { Budgets } from '../../harness/budget';
import type { ChatModel } from '../../harness/loop-context';
import { ChatClient, type ChatConfig } from '../../harness/model-client';
import { OllamaChatClient } from '../../harness/ollama-chat';
import type { RemoteEmbeddingConfig } from '../../index/embed/embedding-client';
import type { ManifestEmbedding } from '../../index/store/snapshot-manifest';
import { TOKENIZER_HEADROOM } from './context-window';
import { runChat } from './local-chat';
import { describeModel, findLocalServer } from './local-server';

/** What Test Connection found out about a local server behind an endpoint (null for any other endpoint). */
export const LocalServerReport = z.object({
  server: LocalServer,
  version: z.string().nullable(),
  model: z.string(),
  /** How long loading the model took, when Test Connection loaded it. */
  load_ms: z.number().int().nullable(),
  /** Chat: the window and the context budget taken from it. */
  window: ContextWindow.nullable(),
  /** Embedding: the most tokens one text may have before the model cuts it, when known. */
  embedding_window: z.number().int().nullable(),
  /** What the person should know, one sentence each (a small window, blocks longer than the embedding window, a rebuild). */
  notes: z.array(z.string()),
});
export type LocalServerReport = z.infer<typeof LocalServerReport>;

/** Below this many tokens DocQA's own prompt (about 2,200 tokens with its tools) leaves little room for evidence. */
export const SMALL_WINDOW = 8192;

const n = (x: number) => x.toLocaleString('en-US');

/**
 * The chat side of Test Connection on a local server: the run's own choice of client and budget
 * (runChat: the model loaded if need be, up to the configured total deadline), then a client with Test
 * Connection's short deadlines for the one-token call. A model the server lacks is a sentence, not a call.
 */
export async function chatForTest(chat: ChatConfig, short: ChatConfig, budgets: Budgets, key: string, pickHint: string, signal?: AbortSignal): Promise<{ model: ChatModel; local: LocalServerReport | null } | { refused: string }> {
  let r;
  try {
    r = await runChat(chat, budgets, key, { signal, pickHint });
  } catch (err) {
    if (signal?.aborted) throw err;
    return { refused: errorMessage(err) };
  }
  if (!r.local) return { model: new ChatClient(short, key), local: null };
  const model = r.model instanceof OllamaChatClient ? new OllamaChatClient(short, key, r.model.ollama) : new ChatClient(short, key);
  const notes: string[] = [];
  if (r.window && r.window.served < SMALL_WINDOW) notes.push(`A ${n(r.window.served)}-token window leaves little room for evidence after DocQA's own prompt (about 2,200 tokens): ${r.local.found.server === 'ollama' ? 'use a model with a longer maximum' : `load the model with at least ${n(SMALL_WINDOW)} tokens in ${SERVER_NAMES.lmstudio}`}.`);
  return { model, local: { server: r.local.found.server, version: r.local.found.version, model: chat.model, load_ms: r.local.load_ms, window: r.window, embedding_window: null, notes } };
}

/** Whether vectors of this endpoint can replace the active snapshot's without a rebuild, in one sentence (null: nothing to say). */
export function rebuildNote(active: ManifestEmbedding | null, e: RemoteEmbeddingConfig, family: string, dims: number | null, blocks: number | null): string | null {
  if (!active) return null;
  const all = blocks !== null ? `all ${n(blocks)} blocks` : 'every block';
  if (active.provider === 'none') return `The active snapshot is keyword-only: using ${e.model} is a rebuild that embeds ${all}.`;
  const same = active.family === family && active.model === e.model;
  if (same && (dims === null || dims === active.dimensions)) return null;
  const theirs = `${active.model} (${n(active.dimensions)} dimensions)`;
  if (dims !== null && dims !== active.dimensions) return `This is a rebuild: the active snapshot's vectors come from ${theirs} and ${e.model} gives ${n(dims)}, so the two cannot be compared and ${all} are embedded again before it is searched.`;
  return `This is a rebuild: the active snapshot's vectors come from ${theirs}, another model, so ${all} are embedded again before it is searched.`;
}

/**
 * The embedding side on a local server, read without sending any text: the model's kind, the most
 * tokens it embeds of one text, and its vector size (Ollama's /api/show; LM Studio reports none).
 */
export async function embeddingLocal(e: RemoteEmbeddingConfig, maxBlockTokens: number, signal?: AbortSignal): Promise<{ report: LocalServerReport; dims: number | null } | null> {
  const found = await findLocalServer(e.base_url, signal);
  if (!found) return null;
  const info = await describeModel(found, e.model, signal).catch(() => null);
  const name = SERVER_NAMES[found.server];
  const notes: string[] = [];
  if (!info) return { report: { server: found.server, version: found.version, model: e.model, load_ms: null, window: null, embedding_window: null, notes }, dims: null };
  if (info.kind === 'chat') notes.push(`${name} says ${e.model} is a chat model, not an embedding model: pick an embedding model.`);
  // Ollama's OpenAI-compatible embeddings run with the Modelfile's window, else its default, within the model's maximum.
  const cap = found.server === 'ollama' ? Math.min(info.modelfile_num_ctx ?? 4096, info.model_max ?? Infinity) : (info.running_context ?? info.model_max);
  const window = cap !== null && Number.isFinite(cap) ? cap : null;
  if (window !== null && Math.ceil(maxBlockTokens * TOKENIZER_HEADROOM) > window) notes.push(`${name} embeds at most ${n(window)} tokens of a text with ${e.model}, and DocQA's blocks may have ${n(maxBlockTokens)} (more in the model's own tokens): longer blocks would be cut before they are embedded; lower the largest block size, or use a model with a longer window.`);
  return { report: { server: found.server, version: found.version, model: e.model, load_ms: null, window: null, embedding_window: window, notes }, dims: info.embedding_length };
}

/** The local server's part of Test Connection's sentence. */
export function localWords(r: LocalServerReport): string {
  const name = `${SERVER_NAMES[r.server]}${r.version ? ` ${r.version}` : ''}`;
  const loaded = r.load_ms !== null ? ` It loaded ${r.model} first, in ${(r.load_ms / 1000).toFixed(1)} s.` : '';
  const window = r.window ? ` ${r.window.reason}` : r.embedding_window !== null ? ` It embeds at most ${n(r.embedding_window)} tokens of a text.` : '';
  return `Served by ${name} on this machine or network.${loaded}${window}${r.notes.length ? ` ${r.notes.join(' ')}` : ''}`;
}
