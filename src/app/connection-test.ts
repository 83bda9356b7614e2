import { z } from 'zod';
import { ProviderFailure, actionFor, describeFailure, endpointOf, isLoopback } from '../common/provider-failure';
import { ChatClient, ChatError } from '../harness/model-client';
import { EmbeddingClient, EmbeddingError } from '../index/embed/embedding-client';
import type { AppSettings, Clock, HostWords } from './settings';

/** What "Test Connection" reports for one service, in data and in one sentence. */
export const ConnectionReport = z.object({
  provider: z.enum(['chat', 'embedding']),
  ok: z.boolean(),
  /** Keyword-only: there is no embedding endpoint to call (not a failure). */
  skipped: z.boolean(),
  endpoint: z.string().nullable(),
  /** What was called, e.g. "POST /chat/completions (1 output token)". */
  called: z.string().nullable(),
  model_requested: z.string().nullable(),
  /** The model the server said answered. */
  model_reported: z.string().nullable(),
  latency_ms: z.number().int().nullable(),
  /** Embeddings: the vector size the endpoint returned. */
  dimensions: z.number().int().nullable(),
  failure: ProviderFailure.nullable(),
  detail: z.string(),
});
export type ConnectionReport = z.infer<typeof ConnectionReport>;

const missingKey = (provider: 'chat' | 'embedding', baseUrl: string, model: string): ProviderFailure => ({ provider, kind: 'missing_key', endpoint: endpointOf(baseUrl), model, status: null, network_error: null, provider_message: null, attempts: 0, retryable: false, action: actionFor('missing_key'), retry_after_refused: null });

/** Keyword-only is not a failure, but search then matches words, not meaning: say so, and how to change it. */
export function keywordOnlyWords(words: HostWords): string {
  const n = words.settings.embedding;
  return `Keyword-only search: no embedding endpoint is used, so search matches words, not meaning. To search by meaning, turn embeddings on (provider openai-compatible, with ${n.base_url} and ${n.model}), set ${n.key}, then rebuild with ${words.buildCommand}.`;
}

/**
 * Calls one endpoint the cheapest way that still proves the key, the base URL and the model work
 * together: a one-token chat completion, or the embedding of one word. A missing key is reported
 * without a request (unless the endpoint is on this machine, where local servers often need none).
 */
export async function testConnection(which: 'chat' | 'embedding', settings: AppSettings, key: string | undefined, words: HostWords, clock: Clock, signal?: AbortSignal): Promise<ConnectionReport> {
  const names = words.settings[which];
  if (which === 'chat') {
    const c = settings.chat;
    const base = { provider: 'chat' as const, skipped: false, endpoint: endpointOf(c.base_url), called: 'POST /chat/completions (1 output token)', model_requested: c.model, dimensions: null };
    if (!key && !isLoopback(c.base_url)) {
      const failure = missingKey('chat', c.base_url, c.model);
      return { ...base, ok: false, called: null, model_reported: null, latency_ms: null, failure, detail: describeFailure(failure, names) };
    }
    const t = clock.now().getTime();
    try {
      const r = await new ChatClient({ ...c, idle_timeout_ms: Math.min(c.idle_timeout_ms, 30_000), total_timeout_ms: Math.min(c.total_timeout_ms, 60_000) }, key ?? '').complete([{ role: 'user', content: 'ping' }], { signal, maxOutputTokens: 1 });
      const latency = clock.now().getTime() - t;
      return { ...base, ok: true, model_reported: r.model, latency_ms: latency, failure: null, detail: `The chat model ${r.model ?? c.model} at ${base.endpoint} answered in ${latency} ms.` };
    } catch (err) {
      if (signal?.aborted) throw err;
      const failure = err instanceof ChatError ? err.failure : null;
      return { ...base, ok: false, model_reported: null, latency_ms: clock.now().getTime() - t, failure, detail: failure ? describeFailure(failure, names) : String(err) };
    }
  }
  const e = settings.embedding;
  if (e.provider === 'none') {
    return { provider: 'embedding', ok: true, skipped: true, endpoint: null, called: null, model_requested: null, model_reported: null, latency_ms: null, dimensions: null, failure: null, detail: keywordOnlyWords(words) };
  }
  const base = { provider: 'embedding' as const, skipped: false, endpoint: endpointOf(e.base_url), called: 'POST /embeddings (1 word)', model_requested: e.model };
  if (!key && !isLoopback(e.base_url)) {
    const failure = missingKey('embedding', e.base_url, e.model);
    return { ...base, ok: false, called: null, model_reported: null, latency_ms: null, dimensions: null, failure, detail: describeFailure(failure, names) };
  }
  const t = clock.now().getTime();
  try {
    const r = await new EmbeddingClient({ ...e, timeout_ms: Math.min(e.timeout_ms, 30_000) }, key ?? '').embed(['ping'], signal);
    const latency = clock.now().getTime() - t;
    const dims = r.vectors[0]?.length ?? null;
    return { ...base, ok: true, model_reported: r.model ?? null, latency_ms: latency, dimensions: dims, failure: null, detail: `The embedding model ${r.model ?? e.model} at ${base.endpoint} answered in ${latency} ms (${dims} dimensions).` };
  } catch (err) {
    if (signal?.aborted) throw err;
    const failure = err instanceof EmbeddingError ? err.failure : null;
    return { ...base, ok: false, model_reported: null, latency_ms: clock.now().getTime() - t, dimensions: null, failure, detail: failure ? describeFailure(failure, names) : String(err) };
  }
}
