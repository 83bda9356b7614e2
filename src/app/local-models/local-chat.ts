import { DocQaError, UsageError, errorMessage } from '../../common/errors';
import { endpointOf } from '../../common/provider-failure';
import { type ContextWindow, SERVER_NAMES } from '../../common/served-window';
import type { Budgets } from '../../harness/budget';
import type { ChatModel } from '../../harness/loop-context';
import { ChatClient, type ChatConfig } from '../../harness/model-client';
import { OllamaChatClient } from '../../harness/ollama-chat';
import { decideWindow } from './context-window';
import { probe } from './local-http';
import { type FoundServer, type LocalModel, describeModel, findLocalServer, listModels } from './local-server';

/** Told while a local server loads the model, before the first request can be answered. */
export interface ModelLoading {
  server: FoundServer['server'];
  model: string;
  /** The window it is loaded with (Ollama: DocQA's num_ctx), when known before loading. */
  window: number | null;
  /** How long DocQA waits for it (the chat's total deadline). */
  timeout_ms: number;
}

/** The chat model of a run and the budgets it may use: the configured ones, or a context budget lowered to the served window. */
export interface RunChat {
  model: ChatModel;
  budgets: Budgets;
  /** Why the context budget is what it is, when the model is served locally; null for any other endpoint. */
  window: ContextWindow | null;
  /** The local server and how long it took to load the model (null when it was loaded already). */
  local: { found: FoundServer; info: LocalModel; load_ms: number | null } | null;
}

/** The final answer's reserve must fit a lowered context budget: at most a quarter of it. */
function budgetsFor(configured: Budgets, w: ContextWindow | null): Budgets {
  if (!w) return configured;
  return { ...configured, max_context_tokens: w.max_context_tokens, finalization_reserve_tokens: Math.min(configured.finalization_reserve_tokens, Math.floor(w.max_context_tokens / 4)) };
}

/** The model is missing, or is no chat model: said before anything is sent, with what the server has. */
async function refuse(found: FoundServer, chat: ChatConfig, info: LocalModel | null, pickHint: string, signal?: AbortSignal): Promise<never> {
  const name = SERVER_NAMES[found.server];
  const models = await listModels(found, signal).catch(() => [] as LocalModel[]);
  const chatModels = models.filter((m) => m.kind !== 'embedding').map((m) => m.id);
  const has = chatModels.length ? `its chat models: ${chatModels.join(', ')}` : 'it has no chat model';
  if (info) throw new UsageError(`${chat.model} at ${endpointOf(chat.base_url)} is an embedding model, not a chat model (${name} says so); ${has}. Pick one with ${pickHint}; nothing was sent`);
  const get = found.server === 'ollama' ? `\`ollama pull ${chat.model}\`` : `download it in ${name}`;
  throw new UsageError(`${name} at ${endpointOf(chat.base_url)} has no model ${chat.model}; ${has}. Pick one with ${pickHint}, or ${get}; nothing was sent`);
}

/** Ollama loads a model when asked to chat with no messages; the window is the one given here. */
async function ollamaLoad(found: FoundServer, chat: ChatConfig, numCtx: number, signal?: AbortSignal): Promise<void> {
  const r = await probe(`${found.root}/api/chat`, { method: 'POST', body: { model: chat.model, messages: [], stream: false, options: { num_ctx: numCtx } }, timeoutMs: chat.total_timeout_ms, signal });
  if (r.status !== 200) throw new Error(`Ollama could not load ${chat.model} (HTTP ${r.status}): ${JSON.stringify(r.json)}`);
}

/** LM Studio loads a model at its first request (just in time): one output token loads it. */
async function lmStudioLoad(chat: ChatConfig, key: string, signal?: AbortSignal): Promise<void> {
  await new ChatClient({ ...chat, idle_timeout_ms: chat.total_timeout_ms }, key).complete([{ role: 'user', content: 'ping' }], { signal, maxOutputTokens: 1 });
}

/**
 * The chat model for a run (a question, a Test Connection, an evaluation case). Behind a base URL on this
 * machine or a private network it looks for Ollama or LM Studio, reads the model's window, and — before
 * anything of the question is sent — loads the model when it is not loaded yet (told through `onLoading`,
 * waiting up to the chat's total deadline rather than its idle one). Ollama is then spoken to through its
 * own chat API with num_ctx set per request; LM Studio through its OpenAI-compatible one, with the
 * context budget clamped to the window it loaded. A load that fails is not fatal here: the first real
 * request fails the same way, with the words and trace of a model call.
 */
export async function runChat(chat: ChatConfig, budgets: Budgets, key: string, o: { signal?: AbortSignal; onLoading?: (e: ModelLoading) => void; pickHint: string }): Promise<RunChat> {
  const plain: RunChat = { model: new ChatClient(chat, key), budgets, window: null, local: null };
  const found = await findLocalServer(chat.base_url, o.signal);
  if (!found) return plain;
  let info: LocalModel | null;
  try {
    info = await describeModel(found, chat.model, o.signal);
  } catch (err) {
    if (o.signal?.aborted) throw err;
    // Without the window DocQA cannot keep its promise: nothing is sent rather than a prompt that may be cut.
    throw new DocQaError('upstream_unavailable', `${SERVER_NAMES[found.server]} at ${endpointOf(chat.base_url)} did not say which window ${chat.model} is served with (${errorMessage(err)}); nothing was sent`);
  }
  if (!info || info.kind === 'embedding') return refuse(found, chat, info, o.pickHint, o.signal);
  const configured = budgets.max_context_tokens;
  // Ollama: the window it would use on its own (running now, else the Modelfile's), read before DocQA loads it.
  const serverDefault = found.server === 'ollama' ? (info.running_context ?? info.modelfile_num_ctx) : null;
  const decide = (m: LocalModel, modelMax = m.model_max) => decideWindow(configured, { server: found.server, model: chat.model, modelMax, serverDefault, loaded: m.loaded ? m.running_context : null });
  let window = decide(info);
  let load_ms: number | null = null;
  const numCtx = window?.served ?? null;
  const needsLoad = found.server === 'ollama' ? !info.loaded || info.running_context !== numCtx : !info.loaded;
  if (needsLoad) {
    o.onLoading?.({ server: found.server, model: chat.model, window: found.server === 'ollama' ? numCtx : null, timeout_ms: chat.total_timeout_ms });
    const t = performance.now();
    try {
      if (found.server === 'ollama') await ollamaLoad(found, chat, numCtx!, o.signal);
      else await lmStudioLoad(chat, key, o.signal);
      load_ms = Math.round(performance.now() - t);
      const after = await describeModel(found, chat.model, o.signal);
      if (after) {
        // Ollama may load with less than asked (its own limits): then the window it reports is the one served.
        const short = found.server === 'ollama' && after.running_context !== null && numCtx !== null && after.running_context < numCtx;
        window = found.server === 'ollama' ? (short ? decide(after, after.running_context) : window) : decide(after);
        info = after;
      }
    } catch (err) {
      if (o.signal?.aborted) throw err;
    }
  }
  const model = found.server === 'ollama' && window ? new OllamaChatClient(chat, key, { root: found.root, numCtx: window.served, canThink: info.thinking }) : plain.model;
  return { model, budgets: budgetsFor(budgets, window), window, local: { found, info, load_ms } };
}
