import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import { type FailureKind, type ProviderFailure, ProviderEndpoint, connectionKind, httpKind, networkErrorCode, serviceMessage } from '../common/provider-failure';
import { DocQaError } from '../common/errors';

export const DEFAULT_CHAT_BASE_URL = 'https://api.deepseek.com';
export const DEFAULT_CHAT_MODEL = 'deepseek-v4-flash';

export const ChatConfig = z.object({
  base_url: z.string().url().default(DEFAULT_CHAT_BASE_URL),
  model: z.string().min(1).default(DEFAULT_CHAT_MODEL),
  /** Set explicitly (DeepSeek V4 thinks by default); recorded in the run manifest. */
  thinking: z.enum(['enabled', 'disabled']).default('disabled'),
  /** Sent only with thinking disabled (thinking mode ignores it). */
  temperature: z.number().min(0).max(2).default(0),
  max_output_tokens: z.number().int().positive().default(4096),
  /** No byte for this long ends the call: the SDK's own timeout stops counting once headers arrive. */
  idle_timeout_ms: z.number().int().min(50).default(60_000),
  total_timeout_ms: z.number().int().min(50).default(300_000),
});
export type ChatConfig = z.infer<typeof ChatConfig>;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The API's own usage for one call, DeepSeek's prompt-cache split included when it is sent. */
export const ChatUsage = z.object({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
  prompt_cache_hit_tokens: z.number().int().min(0).nullable().default(null),
  prompt_cache_miss_tokens: z.number().int().min(0).nullable().default(null),
});
export type ChatUsage = z.infer<typeof ChatUsage>;

export interface ChatResult {
  content: string;
  /** Reasoning text (thinking mode): for the trace only, never sent back into the history. */
  reasoning: string;
  finish_reason: string;
  usage: ChatUsage | null;
  /** The model the server says answered (it may differ from the one asked for, e.g. an alias). */
  model: string | null;
}

export type ChatErrorKind = 'truncated' | 'idle_timeout' | 'total_timeout' | 'unreachable' | 'tls' | 'rate_limited' | 'server_error' | 'context_length' | 'auth' | 'balance' | 'not_found' | 'rejected' | 'bad_response';

const FAILURE_KIND: Record<ChatErrorKind, FailureKind> = {
  truncated: 'truncated',
  idle_timeout: 'timeout',
  total_timeout: 'timeout',
  unreachable: 'unreachable',
  tls: 'tls',
  rate_limited: 'rate_limited',
  server_error: 'server_error',
  context_length: 'context_length',
  auth: 'auth',
  balance: 'balance',
  not_found: 'not_found',
  rejected: 'rejected',
  bad_response: 'bad_response',
};

/** What a failed attempt had streamed before it failed (a cut or stalled stream): tokens that were spent. */
export interface StreamedPart {
  content: string;
  reasoning: string;
}

/**
 * A model call that did not produce a complete answer. `retryable` says whether one more try makes
 * sense; `failure` says what happened in words a person can act on (the key never in it); `streamed`
 * is what arrived before a stream broke off, for the budget (null when no answer had begun).
 */
export class ChatError extends DocQaError {
  constructor(
    readonly kind: ChatErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
    readonly failure: ProviderFailure | null = null,
    readonly streamed: StreamedPart | null = null,
  ) {
    super('upstream_unavailable', message);
  }
}

function chatError(where: ProviderEndpoint, kind: ChatErrorKind, message: string, retryable: boolean, status: number | null = null, network: string | null = null, said: string | null = null, streamed: StreamedPart | null = null): ChatError {
  return new ChatError(kind, where.redact(message), retryable, status, where.failure(FAILURE_KIND[kind], retryable, status, network, said), streamed);
}

function classify(err: unknown, where: ProviderEndpoint, streamed: StreamedPart | null): ChatError {
  if (err instanceof ChatError) return err;
  if (err instanceof APIConnectionError) {
    const code = networkErrorCode(err);
    const kind = connectionKind(code) === 'tls' ? 'tls' : connectionKind(code) === 'timeout' ? 'idle_timeout' : 'unreachable';
    return chatError(where, kind, `chat endpoint ${where.endpoint} unreachable${code ? ` (${code})` : ''}: ${err.message}`, kind !== 'tls', null, code, null, streamed);
  }
  if (err instanceof APIError) {
    const s = err.status ?? 0;
    const said = serviceMessage(err);
    const { kind, retryable } = httpKind(s, said);
    const what: Record<typeof kind, string> = {
      context_length: `the request is longer than the model's context: ${said}`,
      auth: `chat endpoint rejected the API key (HTTP ${s})`,
      balance: 'chat endpoint refused: insufficient balance (HTTP 402)',
      not_found: `chat model or endpoint not found: ${where.model} (HTTP 404)`,
      rate_limited: 'chat endpoint rate-limited the request (HTTP 429)',
      server_error: `chat endpoint failed (HTTP ${s})`,
      rejected: `chat request rejected (HTTP ${s}): ${said}`,
    };
    return chatError(where, kind, what[kind], retryable, s, null, said, streamed);
  }
  return chatError(where, 'bad_response', `chat endpoint sent an unusable answer: ${err instanceof Error ? err.message : String(err)}`, true, null, null, null, streamed);
}

/** Per-call options: cancellation, streamed text, and a cap on this call's output (the run's budget). */
export interface CompleteOptions {
  signal?: AbortSignal;
  onDelta?: (text: string) => void;
  /** At most this many output tokens (never more than the configured max_output_tokens). */
  maxOutputTokens?: number;
}

/**
 * One streamed chat completion over any OpenAI-compatible endpoint (DeepSeek by default): our own idle
 * and total deadlines, cancellation, the API's usage (from the final usage chunk), reasoning kept apart
 * from the answer, and a stream that ends without a finish reason reported as truncated. Retries are
 * the caller's decision (the harness traces each attempt). Errors name the endpoint and never the key.
 */
export class ChatClient {
  private readonly client: OpenAI;
  private readonly where: ProviderEndpoint;

  constructor(
    readonly config: ChatConfig,
    apiKey: string,
  ) {
    // apiKey and baseURL explicit: the SDK must never pick up OPENAI_* variables by itself.
    this.client = new OpenAI({ apiKey: apiKey || 'none', baseURL: config.base_url, maxRetries: 0, timeout: config.total_timeout_ms });
    this.where = new ProviderEndpoint('chat', config.base_url, config.model, apiKey);
  }

  async complete(messages: readonly ChatMessage[], opts: CompleteOptions = {}): Promise<ChatResult> {
    const { config, where } = this;
    const deadline = new AbortController();
    let why: 'idle' | 'total' | null = null;
    const expire = (kind: 'idle' | 'total') => {
      why ??= kind;
      deadline.abort(new Error(`${kind} deadline`));
    };
    const total = setTimeout(() => expire('total'), config.total_timeout_ms);
    let idle = setTimeout(() => expire('idle'), config.idle_timeout_ms);
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => expire('idle'), config.idle_timeout_ms);
    };
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
    let content = '';
    let reasoning = '';
    let finish: string | null = null;
    let usage: ChatUsage | null = null;
    let model: string | null = null;
    let begun = false;
    const streamed = (): StreamedPart | null => (begun ? { content, reasoning } : null);
    try {
      const params = {
        model: config.model,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        stream: true as const,
        stream_options: { include_usage: true },
        max_tokens: Math.max(1, Math.min(config.max_output_tokens, opts.maxOutputTokens ?? config.max_output_tokens)),
        thinking: { type: config.thinking },
        ...(config.thinking === 'disabled' ? { temperature: config.temperature } : {}),
      };
      const stream = await this.client.chat.completions.create(params as OpenAI.Chat.ChatCompletionCreateParamsStreaming, { signal });
      begun = true;
      for await (const chunk of stream) {
        touch();
        if (typeof chunk.model === 'string' && chunk.model) model = chunk.model;
        if (chunk.usage) {
          const u = ChatUsage.safeParse(chunk.usage);
          if (u.success) usage = u.data;
        }
        const choice = chunk.choices[0];
        if (!choice) continue;
        const delta = choice.delta as { content?: string | null; reasoning_content?: string | null };
        if (delta.reasoning_content) reasoning += delta.reasoning_content;
        if (delta.content) {
          content += delta.content;
          opts.onDelta?.(delta.content);
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (why || err instanceof APIUserAbortError) {
        const kind = why === 'total' ? 'total_timeout' : 'idle_timeout';
        throw chatError(where, kind, kind === 'total_timeout' ? `the model did not finish within ${config.total_timeout_ms} ms` : `the model sent nothing for ${config.idle_timeout_ms} ms`, true, null, null, null, streamed());
      }
      throw classify(err, where, streamed());
    } finally {
      clearTimeout(total);
      clearTimeout(idle);
    }
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (why) throw chatError(where, why === 'total' ? 'total_timeout' : 'idle_timeout', `the model stream was cut by the ${why} deadline`, true, null, null, null, streamed());
    if (finish === null) throw chatError(where, 'truncated', `the model stream ended without a finish reason after ${content.length} characters`, true, null, null, null, streamed());
    return { content, reasoning, finish_reason: finish, usage, model };
  }
}
