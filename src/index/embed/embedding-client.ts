import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import { type FailureKind, type ProviderFailure, ProviderEndpoint, bodyErrorKind, connectionFailure, errorInBody, httpKind, networkErrorCode, serviceCode, serviceMessage } from '../../common/provider-failure';
import { DocQaError, errorMessage } from '../../common/errors';
import { AbortScope } from '../../common/abort-scope';
import { RetryPolicy, decideRetry, retryAfterMs, retryAfterWords, sleep } from '../../common/retry-policy';
import { countTokens } from '../../common/tokenizer';

export const EmbeddingConfig = z.discriminatedUnion('provider', [
  z.object({
    provider: z.literal('openai-compatible'),
    base_url: z.string().url(),
    model: z.string().min(1),
    /** Sent as `dimensions` when set (models that support shortening); null keeps the model's size. */
    dimensions: z.number().int().positive().nullable().default(null),
    batch_size: z.number().int().min(1).max(2048).default(64),
    concurrency: z.number().int().min(1).max(16).default(4),
    /** Deadline for one request, body included (the SDK's own timeout stops counting at the headers). */
    timeout_ms: z.number().int().min(100).default(60_000),
    // The retry policy's settings (retry_delay_ms, max_retry_after_ms): one retry of a transient failure.
    ...RetryPolicy.shape,
  }),
  // Keyword-only: the user has no embedding key. Recorded in the manifest and shown; never a silent fallback.
  z.object({ provider: z.literal('none') }),
]);
export type EmbeddingConfig = z.infer<typeof EmbeddingConfig>;
export type RemoteEmbeddingConfig = Extract<EmbeddingConfig, { provider: 'openai-compatible' }>;

/** An embedding request that did not succeed, with what a person needs to fix it. Never carries the API key. */
export class EmbeddingError extends DocQaError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null,
    readonly failure: ProviderFailure | null = null,
  ) {
    super('upstream_unavailable', message);
  }
}

function embeddingError(where: ProviderEndpoint, kind: FailureKind, message: string, retryable: boolean, status: number | null, network: string | null = null, said: string | null = null): EmbeddingError {
  return new EmbeddingError(where.redact(message), retryable, status, where.failure(kind, retryable, status, network, said));
}

/** The same error after `attempts` tries (the failure says how many were made, and a Retry-After not waited for). */
function afterAttempts(e: EmbeddingError, attempts: number, refused: { asked_ms: number; limit_ms: number } | null = null): EmbeddingError {
  const message = refused ? `${e.message}; ${retryAfterWords(refused.asked_ms, refused.limit_ms)}` : e.message;
  return new EmbeddingError(message, e.retryable, e.status, e.failure ? { ...e.failure, attempts, retry_after_refused: refused } : null);
}

/** Told before each retry: which attempt failed, what failed, and how long the pause is. */
export type OnRetry = (e: { attempt: number; error: EmbeddingError; delay_ms: number }) => void;

export interface EmbedResult {
  vectors: Float32Array[];
  /** Tokens the endpoint reports having used (embedding tokens, counted apart from chat tokens). */
  tokens: number;
  /** True when the endpoint reported no usage for some request and its tokens were counted here instead. */
  estimated: boolean;
  /** The model the endpoint says answered (the last batch's), when it says. */
  model?: string | null;
  /** HTTP requests made, retries included. */
  requests: number;
}

/** The endpoint family a cache entry is valid for: host and path of the base URL. */
export function endpointFamily(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.host.toLowerCase()}${u.pathname.replace(/\/+$/, '')}`;
}

/**
 * An embedding as sent: an array, its numbers checked while they are copied into a Float32Array
 * (`toVector`). zod's check of every element, then a copy, then a finiteness pass cost about 0.45 s of
 * a one-book build (500 × 1,024 numbers) on the busy machine; one pass does all three.
 */
const EmbeddingValues = z.custom<unknown[]>((v) => Array.isArray(v), { message: 'embedding must be an array of numbers' });

const EmbeddingsResponse = z.object({
  model: z.string().optional(),
  data: z.array(z.object({ index: z.number().int().min(0), embedding: EmbeddingValues })),
  usage: z.object({ prompt_tokens: z.number().int().min(0).optional(), total_tokens: z.number().int().min(0).optional() }).optional(),
});

/** The numbers of an embedding as float32, `null` when one is not a number; `finite` says whether all are (after the conversion: 1e39 is not). */
export function toVector(values: readonly unknown[]): { vector: Float32Array; finite: boolean } | null {
  const vector = new Float32Array(values.length);
  let finite = true;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (typeof x !== 'number') return null;
    vector[i] = x;
    if (!Number.isFinite(vector[i]!)) finite = false;
  }
  return { vector, finite };
}

/** Classifies a failed attempt: transient failures get one retry, the rest fail at once. */
function classify(err: unknown, where: ProviderEndpoint): EmbeddingError {
  if (err instanceof EmbeddingError) return err;
  if (err instanceof APIConnectionError) {
    const code = networkErrorCode(err);
    const { kind, retryable } = connectionFailure(code);
    return embeddingError(where, kind, `embedding endpoint ${where.endpoint} unreachable or too slow${code ? ` (${code})` : ''}: ${err.message}`, retryable, null, code);
  }
  if (err instanceof APIError) {
    const s = err.status ?? 0;
    const text = serviceMessage(err);
    const { kind, retryable } = httpKind(s, text, serviceCode(err));
    const what: Partial<Record<FailureKind, string>> = {
      auth: `embedding endpoint rejected the API key (HTTP ${s})`,
      balance: 'embedding endpoint refused: insufficient balance (HTTP 402)',
      not_found: `embedding model or endpoint not found: ${where.model} (HTTP 404)`,
      rate_limited: `embedding endpoint busy or failing (HTTP ${s})`,
      server_error: `embedding endpoint busy or failing (HTTP ${s})`,
      context_length: `a text is longer than the embedding model's context: ${text}`,
    };
    return embeddingError(where, kind, what[kind] ?? `embedding request rejected (HTTP ${s}): ${text}`, retryable, s, null, text);
  }
  // The connection died while the body was read (undici's "terminated", a socket code in its cause).
  const code = networkErrorCode(err);
  if (code) return embeddingError(where, 'truncated', `embedding endpoint broke off its answer (${code}): ${errorMessage(err)}`, true, null, code);
  // A body that is not JSON, or JSON of the wrong shape: a broken answer, worth one more try.
  return embeddingError(where, 'bad_response', `embedding endpoint sent an unusable answer: ${errorMessage(err)}`, true, null);
}

/**
 * Embeddings over any OpenAI-compatible `/embeddings` endpoint: batched, a bounded number of requests in
 * flight, the retry policy (one retry of a transient failure, honouring Retry-After up to its limit:
 * the only place embedding requests are retried), a deadline per request, cancellation.
 * Vectors are requested as floats (an endpoint that ignores `base64` would otherwise be decoded into
 * garbage) and checked for count and size.
 */
export class EmbeddingClient {
  private readonly client: OpenAI;
  private readonly where: ProviderEndpoint;

  constructor(
    readonly config: RemoteEmbeddingConfig,
    apiKey: string,
  ) {
    // apiKey, baseURL and logLevel explicit: the SDK must never pick up OPENAI_* variables by itself nor
    // write to the console. maxRetries 0: the retry policy is ours alone.
    this.client = new OpenAI({ apiKey: apiKey || 'none', baseURL: config.base_url, maxRetries: 0, timeout: config.timeout_ms, logLevel: 'off' });
    this.where = new ProviderEndpoint('embedding', config.base_url, config.model, apiKey);
  }

  async embed(texts: readonly string[], signal?: AbortSignal, onRetry?: OnRetry): Promise<EmbedResult> {
    const batches: Array<{ start: number; texts: string[] }> = [];
    for (let i = 0; i < texts.length; i += this.config.batch_size) batches.push({ start: i, texts: texts.slice(i, i + this.config.batch_size) });
    const vectors: Float32Array[] = new Array(texts.length);
    let tokens = 0;
    let requests = 0;
    let estimated = false;
    let model: string | null = null;
    let next = 0;
    // A fixed number of runners pull batches in order: bounded concurrency without a queue library.
    const runner = async () => {
      for (let b = next++; b < batches.length; b = next++) {
        const batch = batches[b]!;
        const r = await this.embedBatch(batch.texts, signal, onRetry);
        r.vectors.forEach((v, i) => (vectors[batch.start + i] = v));
        tokens += r.tokens;
        requests += r.requests;
        estimated ||= r.estimated;
        model = r.model ?? model;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, batches.length) }, runner));
    return { vectors, tokens, requests, estimated, model };
  }

  private async embedBatch(texts: string[], signal?: AbortSignal, onRetry?: OnRetry): Promise<EmbedResult> {
    let requests = 0;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      requests++;
      try {
        const r = await this.request(texts, signal);
        return { ...r, requests };
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const e = classify(err, this.where);
        const asked = err instanceof APIError ? retryAfterMs(err.headers, Date.now()) : null;
        const d = decideRetry(e.retryable, attempt, asked, this.config);
        if (d.kind === 'give_up') throw afterAttempts(e, attempt, d.why === 'retry_after_too_long' ? { asked_ms: asked!, limit_ms: this.config.max_retry_after_ms } : null);
        onRetry?.({ attempt, error: e, delay_ms: d.delay_ms });
        await sleep(d.delay_ms, signal);
      }
    }
  }

  private async request(texts: string[], signal?: AbortSignal): Promise<{ vectors: Float32Array[]; tokens: number; estimated: boolean; model: string | null }> {
    const scope = new AbortScope(signal);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      scope.abort(new Error('embedding request deadline'));
    }, this.config.timeout_ms);
    let raw: unknown;
    try {
      raw = await this.client.embeddings.create(
        {
          model: this.config.model,
          input: texts,
          encoding_format: 'float',
          ...(this.config.dimensions !== null ? { dimensions: this.config.dimensions } : {}),
        },
        { signal: scope.signal },
      );
    } catch (err) {
      if (err instanceof APIUserAbortError && timedOut && !signal?.aborted) {
        throw embeddingError(this.where, 'timeout', `embedding request took longer than ${this.config.timeout_ms} ms`, true, null);
      }
      throw err;
    } finally {
      clearTimeout(deadline);
      scope.dispose();
    }
    // An error object sent with HTTP 200 (some proxies do): the service's words, not "unexpected shape".
    const inBody = errorInBody(raw);
    if (inBody) {
      const { kind, retryable } = bodyErrorKind(inBody);
      throw embeddingError(this.where, kind, `embedding endpoint answered HTTP 200 with an error: ${inBody.message}`, retryable, inBody.status, null, inBody.message);
    }
    const parsed = EmbeddingsResponse.safeParse(raw);
    if (!parsed.success) throw embeddingError(this.where, 'bad_response', 'embedding endpoint answered with an unexpected shape', true, null);
    const { data, usage, model } = parsed.data;
    if (data.length !== texts.length) throw embeddingError(this.where, 'bad_response', `embedding endpoint returned ${data.length} vectors for ${texts.length} texts`, false, null);
    const vectors: Float32Array[] = new Array(texts.length);
    let finite = true;
    for (const d of data) {
      if (d.index >= texts.length || vectors[d.index]) throw embeddingError(this.where, 'bad_response', 'embedding endpoint returned vectors with wrong indices', false, null);
      const v = toVector(d.embedding);
      if (!v) throw embeddingError(this.where, 'bad_response', 'embedding endpoint answered with an unexpected shape', true, null);
      vectors[d.index] = v.vector;
      finite &&= v.finite;
    }
    const dims = this.config.dimensions ?? vectors[0]!.length;
    for (const v of vectors) if (v.length !== dims) throw embeddingError(this.where, 'bad_response', `embedding has ${v.length} dimensions, expected ${dims}`, false, null);
    if (!finite) throw embeddingError(this.where, 'bad_response', 'embedding contains non-finite numbers', false, null);
    const reported = usage?.prompt_tokens ?? usage?.total_tokens;
    // Without the provider's count, ours (o200k) stands in, and the result says so.
    if (reported === undefined) return { vectors, tokens: texts.reduce((n, t) => n + countTokens(t), 0), estimated: true, model: model ?? null };
    return { vectors, tokens: reported, estimated: false, model: model ?? null };
  }
}
