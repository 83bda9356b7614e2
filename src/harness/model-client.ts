import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import { type FailureKind, type ProviderFailure, ProviderEndpoint, bodyErrorKind, connectionFailure, errorInBody, httpKind, networkErrorCode, serviceCode, serviceMessage } from '../common/provider-failure';
import { DocQaError } from '../common/errors';
import { AbortScope } from '../common/abort-scope';
import { RetryPolicy, retryAfterMs } from '../common/retry-policy';
import { StreamDeadlines } from './stream-deadlines';
import { ThinkSplitter } from './think-split';

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
  ...RetryPolicy.shape,
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
  /** The turn, without any `<think>…</think>` reasoning a local model wrote into it. */
  content: string;
  /** Reasoning text (thinking mode's `reasoning_content`, and `<think>` text from the content): for the trace only, never sent back into the history. */
  reasoning: string;
  finish_reason: string;
  usage: ChatUsage | null;
  /** The model the server says answered (it may differ from the one asked for, e.g. an alias). */
  model: string | null;
}

export type ChatErrorKind = 'truncated' | 'idle_timeout' | 'total_timeout' | 'unreachable' | 'tls' | 'rate_limited' | 'server_error' | 'context_length' | 'auth' | 'balance' | 'not_found' | 'rejected' | 'bad_response' | 'empty_answer';

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
  empty_answer: 'empty_answer',
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
    /** How long the service asked to wait before a retry (Retry-After), when it said. */
    readonly retryAfterMs: number | null = null,
  ) {
    super('upstream_unavailable', message);
  }
}

/** A ChatError with its failure in words (shared with the other chat clients, e.g. Ollama's own API). */
export function chatError(where: ProviderEndpoint, kind: ChatErrorKind, message: string, retryable: boolean, status: number | null = null, network: string | null = null, said: string | null = null, streamed: StreamedPart | null = null, retryAfter: number | null = null): ChatError {
  return new ChatError(kind, where.redact(message), retryable, status, where.failure(FAILURE_KIND[kind], retryable, status, network, said), streamed, retryAfter);
}

/** An error object the service sent inside a 200 answer (an SSE `data: {"error": …}` or a JSON body). */
function bodyError(where: ProviderEndpoint, e: NonNullable<ReturnType<typeof errorInBody>>, streamed: StreamedPart | null): ChatError {
  const { kind, retryable } = bodyErrorKind(e);
  const chatKind: ChatErrorKind = kind === 'timeout' ? 'idle_timeout' : (kind as ChatErrorKind);
  return chatError(where, chatKind, `chat endpoint answered HTTP 200 with an error: ${e.message}`, retryable, e.status, null, e.message, streamed);
}

function classify(err: unknown, where: ProviderEndpoint, streamed: StreamedPart | null): ChatError {
  if (err instanceof ChatError) return err;
  if (err instanceof APIConnectionError) {
    const code = networkErrorCode(err);
    const c = connectionFailure(code);
    const kind = c.kind === 'tls' ? 'tls' : c.kind === 'timeout' ? 'idle_timeout' : 'unreachable';
    return chatError(where, kind, `chat endpoint ${where.endpoint} unreachable${code ? ` (${code})` : ''}: ${err.message}`, c.retryable, null, code, null, streamed);
  }
  // The SDK raises an error object found inside a 200 stream as an APIError without a status.
  if (err instanceof APIError && err.status === undefined) {
    const e = errorInBody({ error: err.error });
    if (e) return bodyError(where, e, streamed);
  }
  if (err instanceof APIError) {
    const s = err.status ?? 0;
    const said = serviceMessage(err);
    const { kind, retryable } = httpKind(s, said, serviceCode(err));
    const what: Record<typeof kind, string> = {
      context_length: `the request is longer than the model's context: ${said}`,
      auth: `chat endpoint rejected the API key (HTTP ${s})`,
      balance: 'chat endpoint refused: insufficient balance (HTTP 402)',
      not_found: `chat model or endpoint not found: ${where.model} (HTTP 404)`,
      rate_limited: 'chat endpoint rate-limited the request (HTTP 429)',
      server_error: `chat endpoint failed (HTTP ${s})`,
      rejected: `chat request rejected (HTTP ${s}): ${said}`,
    };
    return chatError(where, kind, what[kind], retryable, s, null, said, streamed, retryAfterMs(err.headers, Date.now()));
  }
  // The connection died after the answer began (undici's "terminated", a socket code in its cause).
  const code = networkErrorCode(err);
  if (code) return chatError(where, 'truncated', `the model stream broke off (${code}) after ${streamed?.content.length ?? 0} characters`, true, null, code, null, streamed);
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
 * from the answer, and a stream that ends without a finish reason reported as truncated. One call is
 * one HTTP request: retries follow the retry policy in the harness, which traces each attempt (the
 * policy's settings travel with the client as `retryPolicy`). Errors name the endpoint and never the key.
 */
export class ChatClient {
  private readonly client: OpenAI;
  private readonly where: ProviderEndpoint;

  constructor(
    readonly config: ChatConfig,
    apiKey: string,
  ) {
    // apiKey, baseURL and logLevel explicit: the SDK must never pick up OPENAI_* variables by itself,
    // and never write to the console (it logs an unparsable stream chunk, raw, at level error).
    // maxRetries 0: the retry policy is ours alone.
    this.client = new OpenAI({ apiKey: apiKey || 'none', baseURL: config.base_url, maxRetries: 0, timeout: config.total_timeout_ms, logLevel: 'off' });
    this.where = new ProviderEndpoint('chat', config.base_url, config.model, apiKey);
  }

  get retryPolicy(): RetryPolicy {
    return { retry_delay_ms: this.config.retry_delay_ms, max_retry_after_ms: this.config.max_retry_after_ms };
  }

  async complete(messages: readonly ChatMessage[], opts: CompleteOptions = {}): Promise<ChatResult> {
    const { config, where } = this;
    const scope = new AbortScope(opts.signal);
    const deadlines = new StreamDeadlines(scope, config);
    const signal = scope.signal;
    let content = '';
    let reasoning = '';
    // Reasoning written inside the content as <think>…</think> (local reasoning models) is taken out as it streams.
    const think = new ThinkSplitter();
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
      const { data: stream, response } = await this.client.chat.completions.create(params as OpenAI.Chat.ChatCompletionCreateParamsStreaming, { signal }).withResponse();
      // A 200 that is not an event stream (an error object as JSON, say) would read as an empty stream.
      const type = response.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) throw await notAStream(where, type, response);
      begun = true;
      for await (const chunk of stream) {
        deadlines.touch();
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
          const text = think.push(delta.content);
          if (text) opts.onDelta?.(text);
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (deadlines.expired || err instanceof APIUserAbortError) throw chatError(where, deadlines.kind, deadlines.message, true, null, null, null, streamed());
      throw classify(err, where, streamed());
    } finally {
      deadlines.clear();
      scope.dispose();
    }
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (deadlines.expired) throw chatError(where, deadlines.kind, `the model stream was cut by the ${deadlines.expired} deadline`, true, null, null, null, streamed());
    if (finish === null) throw chatError(where, 'truncated', `the model stream ended without a finish reason after ${content.length} characters`, true, null, null, null, streamed());
    const split = think.finish();
    content = split.content;
    if (split.reasoning) reasoning = reasoning ? `${reasoning}\n\n${split.reasoning}` : split.reasoning;
    // Nothing at all, yet a normal finish: a glitch of the service (an answer cut by max_tokens, or one
    // written only in the reasoning, is the harness's to handle and stays a reply).
    if (!content.trim() && !reasoning.trim() && finish !== 'length') throw chatError(where, 'empty_answer', `the model finished (${finish}) without writing anything`, true, null, null, null, streamed());
    return { content, reasoning, finish_reason: finish, usage, model };
  }
}

/** The error for a 200 answer to a streaming request that is not an event stream: the service's error object when it sent one. */
async function notAStream(where: ProviderEndpoint, type: string, response: Response): Promise<ChatError> {
  const text = await response.text().catch(() => '');
  let value: unknown = null;
  try {
    value = JSON.parse(text);
  } catch {
    // not JSON either
  }
  const e = errorInBody(value);
  if (e) return bodyError(where, e, null);
  return chatError(where, 'bad_response', `chat endpoint answered a streaming request with ${type || 'no content type'} instead of an event stream`, true);
}
