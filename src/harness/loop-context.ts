import type { Provider, SettingNames } from '../common/provider-failure';
import type { ContextWindow } from '../common/served-window';
import type { RetryPolicy } from '../common/retry-policy';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import type { QueryEmbedder, ToolName } from '../tools/tool';
import type { Span, Tracer } from '../trace/tracer';
import type { AgentEvent } from './agent-result';
import type { ConversationContext } from './conversation-context';
import type { ChatMessage, ChatResult, CompleteOptions } from './model-client';
import type { ProgressTracker } from './progress-tracker';
import type { PromptBundle } from './prompt-bundle';
import type { RunLimits } from './run-limits';
import type { RunState } from './run-state';
import type { RunScope } from './run-scope';
import type { Lang } from '../shared/step-record';

/** What the loop needs from a model: one streamed completion (ChatClient in production). */
export interface ChatModel {
  complete(messages: readonly ChatMessage[], opts: CompleteOptions): Promise<ChatResult>;
  /** The retry policy's settings for this model's failures (default: DEFAULT_RETRY_POLICY). */
  readonly retryPolicy?: RetryPolicy;
}

export interface AgentOptions {
  question: string;
  snapshot: LoadedSnapshot;
  embedQuery?: QueryEmbedder;
  model: ChatModel;
  bundle: PromptBundle;
  /** A follow-up's earlier turns as the prompts' conversation section (conversationContext); none by default. */
  conversation?: ConversationContext;
  /** The host's settings for the loop (budgets, stopping thresholds), as one value. */
  run: RunLimits;
  /** A chat model served locally: the window behind `run.budgets.max_context_tokens` (ledger and trace say why). */
  contextWindow?: ContextWindow;
  /** The prompt's language, for what the harness tells the model; default: the bundle's. What it writes for the person follows the question (questionLanguage). */
  lang?: Lang;
  /** The documents the question is limited to (run-scope.ts); absent: the whole snapshot. */
  scope?: RunScope;
  /** The run's tool whitelist, fixed for the run. */
  tools?: ReadonlyArray<ToolName>;
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  /** Receives the run's spans (request → turn → llm/tool/rejected/budget/retry → release). */
  tracer?: Tracer;
  /** How the host names its settings, for the advice in provider errors (default: the CLI's variables). */
  settingNames?: Partial<Record<Provider, SettingNames>>;
}

/** One run's fixed inputs and its services, handed to every step of the loop. */
export interface Loop {
  readonly o: AgentOptions;
  readonly state: RunState;
  readonly tracker: ProgressTracker;
  readonly tracer: Tracer;
  readonly root: Span;
  readonly whitelist: ReadonlyArray<ToolName>;
  /** The prompt's language: observations the harness writes for the model. */
  readonly lang: Lang;
  /** The question's language: fallbacks, listed checks and notes the harness adds for the person. */
  readonly answerLang: Lang;
  emit(e: AgentEvent): void;
  /** Emits the budget ledger as it stands now. */
  ledger(): void;
  /** Tokens of the current prompt around the history (the agent's, or the final round's). */
  frameTokens(): number;
}
