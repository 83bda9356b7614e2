import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import { DocQaError } from '../index/errors';

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
}

export type ChatErrorKind = 'truncated' | 'idle_timeout' | 'total_timeout' | 'unreachable' | 'rate_limited' | 'server_error' | 'context_length' | 'auth' | 'rejected' | 'bad_response';

/** A model call that did not produce a complete answer. `retryable` says whether one more try makes sense. */
export class ChatError extends DocQaError {
  constructor(
    readonly kind: ChatErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
  ) {
    super('upstream_unavailable', message);
  }
}

function classify(err: unknown): ChatError {
  if (err instanceof ChatError) return err;
  if (err instanceof APIConnectionError) return new ChatError('unreachable', `chat endpoint unreachable: ${err.message}`, true);
  if (err instanceof APIError) {
    const s = err.status ?? 0;
    const msg = err.message;
    if (s === 400 && /maximum context length|context length/i.test(msg)) return new ChatError('context_length', `the request is longer than the model's context: ${msg}`, false, s);
    if (s === 401 || s === 403) return new ChatError('auth', `chat endpoint rejected the API key (HTTP ${s})`, false, s);
    if (s === 402) return new ChatError('rejected', 'chat endpoint refused: insufficient balance (HTTP 402)', false, s);
    if (s === 429) return new ChatError('rate_limited', `chat endpoint rate-limited the request (HTTP 429)`, true, s);
    if (s === 408 || s === 409 || s >= 500) return new ChatError('server_error', `chat endpoint failed (HTTP ${s})`, true, s);
    return new ChatError('rejected', `chat request rejected (HTTP ${s}): ${msg}`, false, s);
  }
  return new ChatError('bad_response', `chat endpoint sent an unusable answer: ${err instanceof Error ? err.message : String(err)}`, true);
}

/**
 * One streamed chat completion over any OpenAI-compatible endpoint (DeepSeek by default): our own idle
 * and total deadlines, cancellation, the API's usage (from the final usage chunk), reasoning kept apart
 * from the answer, and a stream that ends without a finish reason reported as truncated. Retries are
 * the caller's decision (the harness traces each attempt).
 */
export class ChatClient {
  private readonly client: OpenAI;

  constructor(
    readonly config: ChatConfig,
    apiKey: string,
  ) {
    // apiKey and baseURL explicit: the SDK must never pick up OPENAI_* variables by itself.
    this.client = new OpenAI({ apiKey: apiKey || 'none', baseURL: config.base_url, maxRetries: 0, timeout: config.total_timeout_ms });
  }

  async complete(messages: readonly ChatMessage[], opts: { signal?: AbortSignal; onDelta?: (text: string) => void } = {}): Promise<ChatResult> {
    const { config } = this;
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
    try {
      const params = {
        model: config.model,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        stream: true as const,
        stream_options: { include_usage: true },
        max_tokens: config.max_output_tokens,
        thinking: { type: config.thinking },
        ...(config.thinking === 'disabled' ? { temperature: config.temperature } : {}),
      };
      const stream = await this.client.chat.completions.create(params as OpenAI.Chat.ChatCompletionCreateParamsStreaming, { signal });
      for await (const chunk of stream) {
        touch();
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
        throw new ChatError(kind, kind === 'total_timeout' ? `the model did not finish within ${config.total_timeout_ms} ms` : `the model sent nothing for ${config.idle_timeout_ms} ms`, true);
      }
      throw classify(err);
    } finally {
      clearTimeout(total);
      clearTimeout(idle);
    }
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (why) throw new ChatError(why === 'total' ? 'total_timeout' : 'idle_timeout', `the model stream was cut by the ${why} deadline`, true);
    if (finish === null) throw new ChatError('truncated', `the model stream ended without a finish reason after ${content.length} characters`, true);
    return { content, reasoning, finish_reason: finish, usage };
  }
}
