import { z } from 'zod';
import type { DataDir } from '../common/data-dir';
import { DocQaError, UsageError } from '../common/errors';
import { isLoopback } from '../common/provider-failure';
import { Redactor } from '../common/redact';
import { EarlierTurn } from '../harness/conversation-context';
import type { AskEvent } from '../shared/ask-event';
import type { ChatModel } from '../harness/loop-context';
import { activeBundle } from '../harness/prompt-store';
import { questionLanguage } from '../harness/question-language';
import type { SnapshotLru } from '../index/store/snapshot-lru';
import { openSnapshotHandle } from '../tools/snapshot-handle';
import { TraceMode } from '../shared/trace-model';
import type { HostChatModel } from './host-model';
import { ChatClient } from '../harness/model-client';
import { type RunChat, runChat } from './local-models/local-chat';
import { queryEmbedding } from './query-embedding';
import { QuestionScope } from '../shared/question-scope';
import { resolveScope } from './question-scope';
import type { AppSettings, HostWords, KeyProvider } from './settings';
import { type TracedRun, runTraced } from './traced-run';

/**
 * What a host asks: the question, and optionally the answer language, the prompt bundle, the trace mode,
 * and a follow-up's earlier turns (question and released answer, oldest first: their evidence is never
 * passed on, their citation markers are removed).
 */
export const AskRequest = z.object({
  question: z.string(),
  conversation: z.array(EarlierTurn).optional(),
  lang: z.enum(['zh', 'en']).optional(),
  prompt: z.string().optional(),
  trace: TraceMode.optional(),
  /** Sources and documents the question is limited to (the chat's @); absent: the whole knowledge base. */
  scope: QuestionScope.optional(),
});
export type AskRequest = z.infer<typeof AskRequest>;

export { AskEvent } from '../shared/ask-event';

export interface AskOutcome extends TracedRun {
  snapshot_id: string;
  lang: 'zh' | 'en';
  trace_mode: TraceMode;
}

export { questionLanguage };

/** An empty question, or one past the size limit, is refused before anything is sent. */
export function checkQuestion(question: string, max: number, limitName: string): void {
  if (!question.trim()) throw new UsageError('the question is empty: ask something, e.g. docqa ask "What is osmosis?"');
  const chars = [...question].length;
  if (chars > max) throw new UsageError(`the question is ${chars} characters long, more than ${max} (${limitName}): shorten it, or raise the limit`);
}

export interface AskContext {
  dir: DataDir;
  lru: SnapshotLru;
  settings: AppSettings;
  keys: KeyProvider;
  words: HostWords;
  appVersion: string;
  /** The name of the question-size limit in this host, for the refusal. */
  questionLimitName: string;
  /** A chat model other than the configured endpoint (tests). */
  model?: ChatModel;
  /** A model the host lends for this question (VS Code's language models): no DocQA chat key is needed. */
  hostModel?: HostChatModel | null;
}

/** What every traced run of this application takes from its settings and host (a question or an evaluation case). */
export function runBase(ctx: AskContext) {
  return { dir: ctx.dir, settings: ctx.settings, appVersion: ctx.appVersion, settingNames: ctx.words.settings };
}

/** The settings with the run's budgets the chat model allows (a local model's served window may lower the context budget). */
export function withBudgets(settings: AppSettings, budgets: AppSettings['run']['budgets']): AppSettings {
  return budgets === settings.run.budgets ? settings : { ...settings, run: { ...settings.run, budgets } };
}

/**
 * One question, composed: checks that need no network (the question, the chat key, the snapshot's
 * embedding endpoint and key), the prompt bundle for the language, the active snapshot pinned for the
 * whole run, the chat client, and the traced agent run. Keys are asked for now and kept only for this
 * run (its redactor). The snapshot is released when the run ends; the trace finishes in the background.
 */
export async function ask(ctx: AskContext, req: AskRequest, o: { signal?: AbortSignal; onEvent?: (e: AskEvent) => void } = {}): Promise<AskOutcome> {
  const { settings, words } = ctx;
  checkQuestion(req.question, settings.run.max_question_chars, ctx.questionLimitName);
  const [chatKey, embeddingKey] = await Promise.all([ctx.keys.chat(), ctx.keys.embedding()]);
  if (!ctx.model && !ctx.hostModel && !chatKey && !isLoopback(settings.chat.base_url)) {
    throw new UsageError(`no chat API key: set ${words.settings.chat.key} to your key for ${settings.chat.base_url} (model ${settings.chat.model}); nothing was sent`);
  }
  const lang = req.lang ?? questionLanguage(req.question);
  const bundle = await activeBundle(ctx.dir, lang, req.prompt);
  const handle = await openSnapshotHandle(ctx.dir, ctx.lru);
  if (!handle) throw new DocQaError('collection_unavailable', `no snapshot is active; build one with ${words.buildCommand}`);
  try {
    const scoped = req.scope ? resolveScope(handle.snapshot, req.scope) : null;
    const embedQuery = queryEmbedding(handle.snapshot, settings, embeddingKey, words, true);
    const chat = await chatFor(ctx, chatKey, o);
    const mode = req.trace ?? settings.trace.mode;
    const run = await runTraced({
      ...runBase(ctx),
      question: req.question,
      conversation: req.conversation,
      settings: withBudgets(ctx.hostModel ? withHostChat(settings, ctx.hostModel) : settings, chat.budgets),
      chatProvider: ctx.hostModel?.provider,
      contextWindow: chat.window,
      snapshot: handle.snapshot,
      embedQuery,
      model: chat.model,
      bundle,
      lang,
      mode,
      redactor: new Redactor([chatKey, embeddingKey]),
      scope: scoped?.run,
      signal: o.signal,
      // The run id comes before the run starts: run_started is the first event a UI hears.
      onRunId: (run_id, conversation) => {
        o.onEvent?.({ type: 'run_started', run_id, snapshot_id: handle.id, lang, prompt_bundle: { id: bundle.id, version: bundle.version, hash: bundle.hash }, conversation, ...(scoped ? { scope: scoped.summary } : {}) });
      },
      onEvent: o.onEvent,
    });
    return { ...run, snapshot_id: handle.id, lang, trace_mode: mode };
  } finally {
    await handle.release();
  }
}

/**
 * The run's chat model and budgets: the one a test gave, else the configured endpoint — behind which a
 * local server is recognised, its model loaded if need be (said through `model_loading`), and the
 * context budget taken from the window it serves (src/app/local-models).
 */
export async function chatFor(ctx: AskContext, chatKey: string | undefined, o: { signal?: AbortSignal; onEvent?: (e: AskEvent) => void }): Promise<RunChat> {
  const budgets = ctx.settings.run.budgets;
  if (ctx.model) return { model: ctx.model, budgets, window: null, local: null };
  if (ctx.hostModel) return { model: ctx.hostModel.model, budgets: hostBudgets(budgets, ctx.hostModel.maxInputTokens), window: null, local: null };
  try {
    return await runChat(ctx.settings.chat, budgets, chatKey ?? '', { signal: o.signal, pickHint: ctx.words.pickModelCommand, onLoading: (e) => o.onEvent?.({ type: 'model_loading', ...e }) });
  } catch (err) {
    // Stopped while the server was looked for or the model loaded: the run still starts, and ends CANCELLED at once (with its trace).
    if (o.signal?.aborted) return { model: new ChatClient(ctx.settings.chat, chatKey ?? ''), budgets, window: null, local: null };
    throw err;
  }
}

/** The settings as a host model's run records them: its name as the chat model, no endpoint URL. */
function withHostChat(settings: AppSettings, m: HostChatModel): AppSettings {
  return { ...settings, chat: { ...settings.chat, base_url: m.provider, model: m.name } };
}

/** A host model's input limit caps the context budget (the final answer's reserve at most a quarter of it). */
export function hostBudgets(configured: AppSettings['run']['budgets'], maxInput: number | null): AppSettings['run']['budgets'] {
  if (!maxInput || maxInput >= configured.max_context_tokens) return configured;
  return { ...configured, max_context_tokens: maxInput, finalization_reserve_tokens: Math.min(configured.finalization_reserve_tokens, Math.floor(maxInput / 4)) };
}
