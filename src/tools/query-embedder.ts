import { EmbeddingClient, type RemoteEmbeddingConfig, endpointFamily } from '../index/embed/embedding-client';
import type { ManifestEmbedding } from '../index/store/snapshot-manifest';
import { type QueryEmbedder, ToolFailure } from './tool';

/**
 * The query embedder for a snapshot: the configured endpoint must be the one the snapshot was built with
 * (same endpoint family, model and dimensions), or query and block vectors would not be comparable.
 */
export function queryEmbedderFor(snapshot: ManifestEmbedding, config: RemoteEmbeddingConfig | null, apiKey: string): QueryEmbedder | undefined {
  if (snapshot.provider === 'none') return undefined;
  return async (query, signal, onRetry) => {
    if (!config) throw new ToolFailure('upstream_unavailable', `this snapshot was built with ${snapshot.model}; configure that embedding endpoint to search it`, false);
    const family = endpointFamily(config.base_url);
    if (family !== snapshot.family || config.model !== snapshot.model) {
      throw new ToolFailure('upstream_unavailable', `the configured embedding model (${config.model} at ${family}) is not the snapshot's (${snapshot.model} at ${snapshot.family})`, false);
    }
    const r = await new EmbeddingClient({ ...config, dimensions: config.dimensions ?? snapshot.dimensions }, apiKey).embed([query], signal, onRetry && ((e) => onRetry({ attempt: e.attempt, delay_ms: e.delay_ms, error: e.error.failure?.kind ?? 'error' })));
    const v = r.vectors[0]!;
    if (v.length !== snapshot.dimensions) throw new ToolFailure('upstream_unavailable', `query embedding has ${v.length} dimensions, the snapshot ${snapshot.dimensions}`, false);
    return { vector: v, tokens: r.tokens, estimated: r.estimated };
  };
}
