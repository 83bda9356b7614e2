import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import { type FailureKind, type ProviderFailure, ProviderEndpoint, connectionKind, httpKind, networkErrorCode, serviceMessage } from '../../common/provider-failure';
import { DocQaError, errorMessage } from '../../common/errors';
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
    /** Longest Retry-After we wait for before giving up instead. */
    max_retry_after_ms: z.number().int().min(0).default(30_000),
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

/** The same error after `attempts` tries (the failure says how many were made). */
function afterAttempts(e: EmbeddingError, attempts: number, message = e.message): EmbeddingError {
  return new EmbeddingError(message, e.retryable, e.status, e.failure ? { ...e.failure, attempts } : null);
}

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

const EmbeddingsResponse = z.object({
  model: z.string().optional(),
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  usage: z.object({ prompt_tokens: z.number().int().min(0).optional(), total_tokens: z.number().int().min(0).optional() }).optional(),
});

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryAfterMs(err: unknown): number | null {
  const headers = err instanceof APIError ? err.headers : undefined;
  const raw = headers?.get('retry-after-ms') ?? null;
  if (raw && Number.isFinite(Number(raw))) return Number(raw);
  const s = headers?.get('retry-after');
  if (!s) return null;
  if (Number.isFinite(Number(s))) return Number(s) * 1000;
  const date = Date.parse(s);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}

/** Classifies a failed attempt: transient failures get one retry, the rest fail at once. */
function classify(err: unknown, where: ProviderEndpoint): EmbeddingError {
  if (err instanceof EmbeddingError) return err;
  if (err instanceof APIConnectionError) {
    const code = networkErrorCode(err);
    const kind = connectionKind(code);
    return embeddingError(where, kind, `embedding endpoint ${where.endpoint} unreachable or too slow${code ? ` (${code})` : ''}: ${err.message}`, kind !== 'tls', null, code);
  }
  if (err instanceof APIError) {
    const s = err.status ?? 0;
    const text = serviceMessage(err);
    const { kind, retryable } = httpKind(s, text);
    const what: Partial<Record<FailureKind, string>> = {
      auth: `embedding endpoint rejected the API key (HTTP ${s})`,
      balance: 'embedding endpoint refused: insufficient balance (HTTP 402)',
      not_found: `embedding model or endpoint not found: ${where.model} (HTTP 404)`,
      rate_limited: `embedding endpoint busy or failing (HTTP ${s})`,
      server_error: `embedding endpoint busy or failing (HTTP ${s})`,
    };
    return embeddingError(where, kind, what[kind] ?? `embedding request rejected (HTTP ${s}): ${text}`, retryable, s, null, text);
  }
  // A body that is not JSON, or JSON of the wrong shape: a broken answer, worth one more try.
  return embeddingError(where, 'bad_response', `embedding endpoint sent an unusable answer: ${errorMessage(err)}`, true, null);
}

/**
 * Embeddings over any OpenAI-compatible `/embeddings` endpoint: batched, a bounded number of requests in
 * flight, one retry for transient failures (honouring Retry-After), a deadline per request, cancellation.
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
    // apiKey and baseURL explicit: the SDK must never pick up OPENAI_* variables by itself.
    this.client = new OpenAI({ apiKey: apiKey || 'none', baseURL: config.base_url, maxRetries: 0, timeout: config.timeout_ms });
    this.where = new ProviderEndpoint('embedding', config.base_url, config.model, apiKey);
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbedResult> {
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
        const r = await this.embedBatch(batch.texts, signal);
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

  private async embedBatch(texts: string[], signal?: AbortSignal): Promise<EmbedResult> {
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
        if (!e.retryable || attempt >= 2) throw afterAttempts(e, attempt);
        const wait = retryAfterMs(err) ?? 500;
        if (wait > this.config.max_retry_after_ms) throw afterAttempts(e, attempt, `${e.message}; asked to retry after ${Math.round(wait / 1000)} s`);
        await sleep(wait, signal);
      }
    }
  }

  private async request(texts: string[], signal?: AbortSignal): Promise<{ vectors: Float32Array[]; tokens: number; estimated: boolean; model: string | null }> {
    const deadline = AbortSignal.timeout(this.config.timeout_ms);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let raw: unknown;
    try {
      raw = await this.client.embeddings.create(
        {
          model: this.config.model,
          input: texts,
          encoding_format: 'float',
          ...(this.config.dimensions !== null ? { dimensions: this.config.dimensions } : {}),
        },
        { signal: combined },
      );
    } catch (err) {
      if (err instanceof APIUserAbortError && deadline.aborted && !signal?.aborted) {
        throw embeddingError(this.where, 'timeout', `embedding request took longer than ${this.config.timeout_ms} ms`, true, null);
      }
      throw err;
    }
    const parsed = EmbeddingsResponse.safeParse(raw);
    if (!parsed.success) throw embeddingError(this.where, 'bad_response', 'embedding endpoint answered with an unexpected shape', true, null);
    const { data, usage, model } = parsed.data;
    if (data.length !== texts.length) throw embeddingError(this.where, 'bad_response', `embedding endpoint returned ${data.length} vectors for ${texts.length} texts`, false, null);
    const vectors: Float32Array[] = new Array(texts.length);
    for (const d of data) {
      if (d.index >= texts.length || vectors[d.index]) throw embeddingError(this.where, 'bad_response', 'embedding endpoint returned vectors with wrong indices', false, null);
      vectors[d.index] = Float32Array.from(d.embedding);
    }
    const dims = this.config.dimensions ?? vectors[0]!.length;
    for (const v of vectors) {
      if (v.length !== dims) throw embeddingError(this.where, 'bad_response', `embedding has ${v.length} dimensions, expected ${dims}`, false, null);
      if (!v.every(Number.isFinite)) throw embeddingError(this.where, 'bad_response', 'embedding contains non-finite numbers', false, null);
    }
    const reported = usage?.prompt_tokens ?? usage?.total_tokens;
    // Without the provider's count, ours (o200k) stands in, and the result says so.
    if (reported === undefined) return { vectors, tokens: texts.reduce((n, t) => n + countTokens(t), 0), estimated: true, model: model ?? null };
    return { vectors, tokens: reported, estimated: false, model: model ?? null };
  }
}
