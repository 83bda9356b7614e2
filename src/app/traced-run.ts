import type { DataDir } from '../common/data-dir';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { type AgentEvent, type AgentOptions, type AgentResult, type ChatModel, runAgent } from '../harness/agent-loop';
import type { PromptBundle } from '../harness/prompt-bundle';
import { type EarlierTurn, conversationContext } from '../harness/conversation-context';
import { TOOLS } from '../tools/registry';
import type { QueryEmbedder, ToolName } from '../tools/tool';
import type { Redactor } from '../common/redact';
import type { ContextWindow } from '../common/served-window';
import type { RunScope } from '../harness/run-scope';
import { buildRunManifest } from './run-manifest';
import type { RunManifest, TraceMode } from '../shared/trace-model';
import { newRunId, pruneTraces } from '../trace/trace-store';
import { type TraceOutcome, TraceWriter, type TraceWriterOptions } from '../trace/trace-writer';
import { Tracer } from '../trace/tracer';
import type { AppSettings } from './settings';

export interface TracedRunOptions {
  dir: DataDir;
  question: string;
  snapshot: LoadedSnapshot;
  model: ChatModel;
  /**
   * The host's settings, as one value: the chat model's (for the manifest), the run's limits (the loop's
   * budgets and thresholds, the bound on the conversation's section in the prompts), and the trace's.
   */
  settings: Pick<AppSettings, 'chat' | 'run' | 'trace'>;
  bundle: PromptBundle;
  /** A chat model served locally: the window `settings.run.budgets.max_context_tokens` was derived from. */
  contextWindow?: ContextWindow | null;
  /** Who served the chat model when it is not DocQA's endpoint ("vscode-lm"): the manifest says so. */
  chatProvider?: string;
  /** A follow-up's earlier turns (question and released answer), oldest first; none for a first question. */
  conversation?: readonly EarlierTurn[];
  /** The answer's language (default: the bundle's). */
  lang?: 'zh' | 'en';
  appVersion: string;
  /** What the trace records (default: the settings' trace mode). */
  mode?: TraceMode;
  redactor: Redactor;
  embedQuery?: QueryEmbedder;
  tools?: ReadonlyArray<ToolName>;
  /** The documents the question is limited to (none: the whole snapshot). */
  scope?: RunScope;
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  writer?: Partial<TraceWriterOptions>;
  /** Traces kept in the data directory after this one is written, oldest deleted first (default: the settings'). */
  keepTraces?: number;
  /** How the host names its settings (advice in provider errors). */
  settingNames?: AgentOptions['settingNames'];
  /** Told the run id (and what of the conversation goes in) before the run starts (a UI links its events to the run's trace). */
  onRunId?: (runId: string, conversation: ConversationUse) => void;
}

/** What of a follow-up's conversation went into its prompts (the trace's meta and the run_started event say the same). */
export interface ConversationUse {
  turns: number;
  dropped: number;
  tokens: number;
}

export interface TracedRun {
  run_id: string;
  manifest: RunManifest;
  result: AgentResult;
  /** What of the conversation went into the prompts. */
  conversation: ConversationUse;
  /** Settles when the trace is on disk (or given up on, bounded): the answer does not wait for it. */
  trace: Promise<TraceOutcome>;
}

/**
 * One request with its trace: the run's manifest, the agent loop with a tracer on a background writer,
 * then the trace closing in the background (bounded). The answer never depends on or waits for the
 * writer: a failed trace comes back as `partial` with the reason.
 */
export async function runTraced(o: TracedRunOptions): Promise<TracedRun> {
  const run_id = newRunId();
  const tools = o.tools ?? TOOLS.map((t) => t.name);
  const { run } = o.settings;
  const mode = o.mode ?? o.settings.trace.mode;
  const manifest = buildRunManifest({ appVersion: o.appVersion, bundle: o.bundle, tools, snapshot: o.snapshot.manifest, settings: o.settings, contextWindow: o.contextWindow, chatProvider: o.chatProvider });
  const conversation = conversationContext(o.bundle.conversation, o.conversation ?? [], run.max_conversation_tokens);
  const use: ConversationUse = { turns: conversation.turns, dropped: conversation.dropped, tokens: conversation.tokens };
  const writer = new TraceWriter(run_id, o.dir.traceDir(run_id), o.redactor, o.writer);
  const tracer = new Tracer(mode, writer);
  const started_at = new Date().toISOString();
  o.onRunId?.(run_id, use);
  const result = await runAgent({
    question: o.question,
    snapshot: o.snapshot,
    embedQuery: o.embedQuery,
    model: o.model,
    bundle: o.bundle,
    conversation,
    run,
    contextWindow: o.contextWindow ?? undefined,
    lang: o.lang,
    tools,
    scope: o.scope,
    signal: o.signal,
    onEvent: o.onEvent,
    tracer,
    settingNames: o.settingNames,
  });
  const closing = writer.close({
    trace_id: tracer.traceId,
    mode,
    started_at,
    question: o.question,
    conversation: use,
    manifest,
    release: { status: result.release.status, reason: result.release.reason, detail: result.release.detail },
    stop_reason: result.stop_reason,
    counts: result.counts,
    tokens: result.tokens,
  });
  const keep = o.keepTraces ?? o.settings.trace.keep;
  const trace = closing.then(async (outcome) => (await pruneTraces(o.dir, keep), outcome));
  return { run_id, manifest, result, conversation: use, trace };
}
