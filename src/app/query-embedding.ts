import { UsageError } from '../common/errors';
import { isLoopback } from '../common/provider-failure';
import type { RemoteEmbeddingConfig } from '../index/embed/embedding-client';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { queryEmbedderFor } from '../tools/query-embedder';
import type { QueryEmbedder } from '../tools/tool';
import type { AppSettings, HostWords } from './settings';

/**
 * The query embedder a request needs for its snapshot. A snapshot built with embeddings is searched with
 * the same model: its endpoint must be configured and, unless it is on this machine, have a key —
 * checked before any request, so a missing key never shows up later as a failed search. `strict: false`
 * (a single tool call, a replay) gives no embedder instead: the search then says upstream_unavailable.
 */
export function queryEmbedding(snapshot: LoadedSnapshot, settings: AppSettings, key: string | undefined, words: HostWords, strict: boolean): QueryEmbedder | undefined {
  const e = snapshot.manifest.embedding;
  if (e.provider === 'none') return undefined;
  const config = settings.embedding.provider === 'none' ? null : (settings.embedding as RemoteEmbeddingConfig);
  if (!strict) return queryEmbedderFor(e, config, key ?? '');
  const how = `this snapshot was built with the embedding model ${e.model} at ${e.family}, and its searches embed the question with it`;
  const names = words.settings.embedding;
  if (!config) throw new UsageError(`${how}: configure that endpoint (${names.base_url}, ${names.model}, ${names.key}), or rebuild keyword-only (${words.keywordOnly})`);
  if (!key && !isLoopback(config.base_url)) throw new UsageError(`no embedding API key: ${how}; set ${names.key}; nothing was sent`);
  return queryEmbedderFor(e, config, key ?? '');
}
