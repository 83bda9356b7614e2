import { z } from 'zod';
import { AbortScope } from '../common/abort-scope';
import { ProviderEndpoint, connectionFailure, httpKind, networkErrorCode } from '../common/provider-failure';
import type { RetryPolicy } from '../common/retry-policy';
import type { ChatModel } from './loop-context';
import { StreamDeadlines } from './stream-deadlines';
import { type ChatConfig, ChatError, type ChatErrorKind, type ChatMessage, type ChatResult, type ChatUsage, type CompleteOptions, type StreamedPart, chatError } from './model-client';

/** How DocQA talks to Ollama's own chat API: where it is, the window to run the model with, and thinking. */
export interface OllamaChatOptions {
  /** The server's root (the base URL without `/v1`). */
  root: string;
  /** `options.num_ctx` of every request: the window DocQA's budget was derived from. */
  numCtx: number;
  /** Whether the model can think: `think` is sent only then (Ollama refuses it for other models). */
  canThink: boolean;
}

/** One line of Ollama's streamed answer (newline-delimited JSON). */
const ChatLine = z.object({
  model: z.string().optional(),
  message: z.object({ content: z.string().optional(), thinking: z.string().optional() }).optional(),
  done: z.boolean().optional(),
  done_reason: z.string().optional(),
  prompt_eval_count: z.number().int().min(0).optional(),
  eval_count: z.number().int().min(0).optional(),
  error: z.string().optional(),
});

const MEMORY_WORDS = /memory|out of memory|cudaMalloc|failed to allocate/i;

/**
 * A chat completion through Ollama's own API, `POST /api/chat`, because only it takes the context window
 * with the request (`options.num_ctx`): Ollama's OpenAI-compatible endpoint runs every model with its
 * default window and cuts a longer prompt silently. Streams like ChatClient (idle and total deadlines,
 * cancellation, reasoning apart, a cut stream reported as truncated), and its failures are ChatErrors in
 * the same words, so the harness's retry policy and the release treat both alike.
 */
export class OllamaChatClient implements ChatModel {
  private readonly where: ProviderEndpoint;

  constructor(
    readonly config: ChatConfig,
    private readonly apiKey: string,
    readonly ollama: OllamaChatOptions,
  ) {
    this.where = new ProviderEndpoint('chat', config.base_url, config.model, apiKey);
  }

  get retryPolicy(): RetryPolicy {
    return { retry_delay_ms: this.config.retry_delay_ms, max_retry_after_ms: this.config.max_retry_after_ms };
  }

  async complete(messages: readonly ChatMessage[], opts: CompleteOptions = {}): Promise<ChatResult> {
    const { config, where } = this;
    const scope = new AbortScope(opts.signal);
    const deadlines = new StreamDeadlines(scope, config);
    let content = '';
    let reasoning = '';
    let finish: string | null = null;
    let usage: ChatUsage | null = null;
    let model: string | null = null;
    let begun = false;
    const streamed = (): StreamedPart | null => (begun ? { content, reasoning } : null);
    const fail = (kind: ChatErrorKind, message: string, retryable: boolean, status: number | null = null, network: string | null = null, said: string | null = null) => chatError(where, kind, message, retryable, status, network, said, streamed());
    try {
      const body = {
        model: config.model,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        stream: true,
        options: {
          num_ctx: this.ollama.numCtx,
          num_predict: Math.max(1, Math.min(config.max_output_tokens, opts.maxOutputTokens ?? config.max_output_tokens)),
          ...(config.thinking === 'disabled' ? { temperature: config.temperature } : {}),
        },
        ...(this.ollama.canThink ? { think: config.thinking === 'enabled' } : {}),
      };
      const res = await fetch(`${this.ollama.root}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: scope.signal,
      });
      if (res.status !== 200) throw await httpFailure(where, res, this.ollama.numCtx, fail);
      if (!res.body) throw fail('bad_response', 'Ollama answered without a body', true);
      begun = true;
      const decoder = new TextDecoder();
      let pending = '';
      const line = (text: string) => {
        if (!text.trim()) return;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          throw fail('bad_response', `Ollama sent a line that is not JSON: ${text.slice(0, 80)}`, true);
        }
        const l = ChatLine.safeParse(value);
        if (!l.success) throw fail('bad_response', 'Ollama sent a chat line of an unexpected shape', true);
        if (l.data.error) throw fail(MEMORY_WORDS.test(l.data.error) ? 'rejected' : 'bad_response', `Ollama failed while answering: ${l.data.error}`, !MEMORY_WORDS.test(l.data.error), null, null, l.data.error);
        if (l.data.model) model = l.data.model;
        const m = l.data.message;
        if (m?.thinking) reasoning += m.thinking;
        if (m?.content) {
          content += m.content;
          opts.onDelta?.(m.content);
        }
        if (l.data.done) {
          finish = l.data.done_reason === 'length' ? 'length' : 'stop';
          const p = l.data.prompt_eval_count;
          const c = l.data.eval_count;
          // Ollama leaves prompt_eval_count out when the whole prompt came from its cache: then ours stands in.
          if (p !== undefined && c !== undefined) usage = { prompt_tokens: p, completion_tokens: c, total_tokens: p + c, prompt_cache_hit_tokens: null, prompt_cache_miss_tokens: null };
        }
      };
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        deadlines.touch();
        pending += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          line(pending.slice(0, nl));
          pending = pending.slice(nl + 1);
        }
      }
      line(pending + decoder.decode());
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (err instanceof ChatError) throw err;
      if (deadlines.expired) throw fail(deadlines.kind, deadlines.message, true);
      const code = networkErrorCode(err);
      if (begun) throw fail('truncated', `the model stream broke off${code ? ` (${code})` : ''} after ${content.length} characters`, true, null, code);
      const c = connectionFailure(code);
      throw fail(c.kind === 'tls' ? 'tls' : c.kind === 'timeout' ? 'idle_timeout' : 'unreachable', `chat endpoint ${where.endpoint} unreachable${code ? ` (${code})` : ''}: ${err instanceof Error ? err.message : String(err)}`, c.retryable, null, code);
    } finally {
      deadlines.clear();
      scope.dispose();
    }
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (finish === null) throw fail('truncated', `the model stream ended without "done" after ${content.length} characters`, true);
    if (!content.trim() && !reasoning.trim() && finish !== 'length') throw fail('empty_answer', `the model finished (${finish}) without writing anything`, true);
    return { content, reasoning, finish_reason: finish, usage, model };
  }
}

/** An HTTP error from Ollama (`{"error": "…"}`); a model that cannot be loaded with the window says which window, and what to change. */
async function httpFailure(where: ProviderEndpoint, res: Response, numCtx: number, fail: (kind: ChatErrorKind, message: string, retryable: boolean, status: number | null, network: string | null, said: string | null) => ChatError): Promise<ChatError> {
  const text = await res.text().catch(() => '');
  let said = text;
  try {
    const e = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof e === 'string') said = e;
    else if (typeof (e as { message?: unknown } | undefined)?.message === 'string') said = (e as { message: string }).message;
  } catch {
    // not JSON: its text is the message
  }
  if (MEMORY_WORDS.test(said)) {
    return fail('rejected', `Ollama could not load ${where.model} with the ${numCtx.toLocaleString('en-US')}-token window DocQA asked for (num_ctx, from the context budget): ${said}; lower the context budget, or use a smaller model`, false, res.status, null, said);
  }
  const { kind, retryable } = httpKind(res.status, said);
  const what: Record<typeof kind, string> = {
    context_length: `the request is longer than the model's context: ${said}`,
    auth: `chat endpoint rejected the API key (HTTP ${res.status})`,
    balance: `chat endpoint refused: insufficient balance (HTTP ${res.status})`,
    not_found: `Ollama has no model ${where.model} (HTTP 404): ${said}`,
    rate_limited: `chat endpoint rate-limited the request (HTTP ${res.status})`,
    server_error: `Ollama failed (HTTP ${res.status}): ${said}`,
    rejected: `chat request rejected (HTTP ${res.status}): ${said}`,
  };
  return fail(kind, what[kind], retryable, res.status, null, said);
}
