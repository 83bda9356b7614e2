import { z } from 'zod';
import { ProviderFailure, actionFor, describeFailure, endpointOf, isLoopback } from '../common/provider-failure';
import { ChatError } from '../harness/model-client';
import { EmbeddingClient, EmbeddingError, endpointFamily } from '../index/embed/embedding-client';
import type { ManifestEmbedding } from '../index/store/snapshot-manifest';
import { LocalServerReport, chatForTest, embeddingLocal, localWords, rebuildNote } from './local-models/connection-local';
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
  /** Ollama or LM Studio behind the endpoint: the model's window and what follows from it (null for any other endpoint). */
  local: LocalServerReport.nullable().default(null),
  /** Embedding: using this model means rebuilding the active snapshot (another model or vector size), in words; null when it does not. */
  rebuild: z.string().nullable().default(null),
});
export type ConnectionReport = z.input<typeof ConnectionReport>;

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
export async function testConnection(which: 'chat' | 'embedding', settings: AppSettings, key: string | undefined, words: HostWords, clock: Clock, signal?: AbortSignal, active: ManifestEmbedding | null = null): Promise<ConnectionReport> {
  const names = words.settings[which];
  if (which === 'chat') {
    const c = settings.chat;
    const base = { provider: 'chat' as const, skipped: false, endpoint: endpointOf(c.base_url), called: 'POST /chat/completions (1 output token)', model_requested: c.model, dimensions: null };
    if (!key && !isLoopback(c.base_url)) {
      const failure = missingKey('chat', c.base_url, c.model);
      return { ...base, ok: false, called: null, model_reported: null, latency_ms: null, failure, detail: describeFailure(failure, names) };
    }
    // A local server is recognised first (and its model loaded, up to the total deadline); the call itself keeps short deadlines.
    const picked = await chatForTest(c, { ...c, idle_timeout_ms: Math.min(c.idle_timeout_ms, 30_000), total_timeout_ms: Math.min(c.total_timeout_ms, 60_000) }, settings.run.budgets, key ?? '', words.pickModelCommand, signal);
    if ('refused' in picked) return { ...base, ok: false, called: null, model_reported: null, latency_ms: null, failure: null, detail: picked.refused };
    const local = picked.local;
    const t = clock.now().getTime();
    try {
      const r = await picked.model.complete([{ role: 'user', content: 'ping' }], { signal, maxOutputTokens: 1 });
      const latency = clock.now().getTime() - t;
      return { ...base, called: local?.server === 'ollama' ? 'POST /api/chat (1 output token, num_ctx)' : base.called, ok: true, model_reported: r.model, latency_ms: latency, failure: null, local, detail: `The chat model ${r.model ?? c.model} at ${base.endpoint} answered in ${latency} ms.${local ? ` ${localWords(local)}` : ''}` };
    } catch (err) {
      if (signal?.aborted) throw err;
      const failure = err instanceof ChatError ? err.failure : null;
      return { ...base, ok: false, model_reported: null, latency_ms: clock.now().getTime() - t, failure, local, detail: failure ? describeFailure(failure, names) : String(err) };
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
    const local = (await embeddingLocal(e, settings.ingest.chunking.max_tokens, signal).catch(() => null))?.report ?? null;
    const rebuild = rebuildNote(active, e, endpointFamily(e.base_url), dims, null);
    const more = [local ? localWords(local) : null, rebuild].filter(Boolean).join(' ');
    return { ...base, ok: true, model_reported: r.model ?? null, latency_ms: latency, dimensions: dims, failure: null, local, rebuild, detail: `The embedding model ${r.model ?? e.model} at ${base.endpoint} answered in ${latency} ms (${dims} dimensions).${more ? ` ${more}` : ''}` };
  } catch (err) {
    if (signal?.aborted) throw err;
    const failure = err instanceof EmbeddingError ? err.failure : null;
    return { ...base, ok: false, model_reported: null, latency_ms: clock.now().getTime() - t, dimensions: null, failure, detail: failure ? describeFailure(failure, names) : String(err) };
  }
}
