import type { DataDir } from '../../../common/data-dir';
import { failureSentence } from '../../../common/provider-failure';
import { EmbeddingCache, embeddingKey } from '../../embed/embedding-cache';
import { EmbeddingClient, EmbeddingError, type RemoteEmbeddingConfig, endpointFamily } from '../../embed/embedding-client';
import type { PauseGate } from '../../ingest/pause-gate';
import type { Document, FailedDocument } from '../../model';

/** Fresh vectors are written to the embedding cache in groups of about this many. */
const CACHE_FLUSH_EVERY = 1024;

/** After this many documents in a row fail to embed, the endpoint is taken as down for this build. */
const EMBED_FAILURES_BEFORE_GIVING_UP = 3;

export interface EmbedPhaseOptions {
  signal?: AbortSignal;
  gate?: PauseGate;
  /** Documents embedded so far, of all, and the embedding tokens they cost. */
  onProgress?: (p: { done: number; total: number; tokens: number }) => void;
}

export interface EmbedOutcome {
  /** Each kept document's block vectors (not yet normalised), in block order. */
  vectorsByDoc: Map<string, Float32Array[]>;
  embedded: number;
  cached: number;
  tokens: number;
  requests: number;
  dims: number | null;
  kept: Document[];
}

/** Vectors for documents from the embedding cache, the rest from the endpoint; a document that cannot be embedded fails alone. */
export async function embedDocuments(
  dir: DataDir,
  documents: readonly Document[],
  config: RemoteEmbeddingConfig,
  apiKey: string,
  failed: FailedDocument[],
  opts: EmbedPhaseOptions,
): Promise<EmbedOutcome> {
  const cache = new EmbeddingCache(dir.embeddingsDir, endpointFamily(config.base_url), config.model, config.dimensions);
  const client = new EmbeddingClient(config, apiKey);
  const vectorsByKey = new Map<string, Float32Array>();
  const vectorsByDoc = new Map<string, Float32Array[]>();
  const kept: Document[] = [];
  let embedded = 0;
  let cached = 0;
  let tokens = 0;
  let requests = 0;
  let failuresInARow = 0;
  let lastError: EmbeddingError | null = null;
  const keysOf = documents.map((doc) => doc.blocks.map((b) => embeddingKey(b.text)));
  // One lookup for the whole batch: the cache reads each segment's vectors whole or hit by hit.
  for (const [k, v] of await cache.getMany(keysOf.flat())) vectorsByKey.set(k, v);
  const pending: Array<readonly [string, Float32Array]> = [];
  try {
    for (const [i, doc] of documents.entries()) {
      opts.signal?.throwIfAborted();
      await opts.gate?.passable(opts.signal);
      opts.onProgress?.({ done: i, total: documents.length, tokens });
      const keys = keysOf[i]!;
      const missing: Array<{ key: string; text: string }> = [];
      const seen = new Set<string>();
      for (const [bi, key] of keys.entries()) {
        const hit = vectorsByKey.get(key);
        if (hit) cached++;
        else if (!seen.has(key)) {
          seen.add(key);
          missing.push({ key, text: doc.blocks[bi]!.text });
        }
      }
      if (missing.length && failuresInARow >= EMBED_FAILURES_BEFORE_GIVING_UP && lastError) {
        failed.push({ path: doc.path, stage: 'embed', code: 'upstream_unavailable', message: `not embedded: the endpoint kept failing (${lastError.failure ? failureSentence(lastError.failure) : lastError.message})` });
        continue;
      }
      if (missing.length) {
        try {
          const r = await client.embed(
            missing.map((m) => m.text),
            opts.signal,
          );
          tokens += r.tokens;
          requests += r.requests;
          embedded += missing.length;
          const fresh = missing.map((m, k) => [m.key, r.vectors[k]!] as const);
          for (const [k, v] of fresh) vectorsByKey.set(k, v);
          pending.push(...fresh);
          // Written in groups, not one file per document; what a crash loses is embedded again on resume.
          if (pending.length >= CACHE_FLUSH_EVERY) await cache.putAll(pending.splice(0));
          failuresInARow = 0;
        } catch (err) {
          if (opts.signal?.aborted || !(err instanceof EmbeddingError)) throw err;
          lastError = err;
          failuresInARow++;
          // The failure in words (service, host and port, status, its message, attempts), the same for every host.
          failed.push({ path: doc.path, stage: 'embed', code: 'upstream_unavailable', message: err.failure ? failureSentence(err.failure) : err.message });
          continue;
        }
      }
      vectorsByDoc.set(doc.doc_id, keys.map((k) => vectorsByKey.get(k)!));
      kept.push(doc);
    }
  } finally {
    // Also when cancelled: vectors already paid for are kept for the next build.
    await cache.putAll(pending.splice(0));
  }
  await cache.compact();
  return { vectorsByDoc, embedded, cached, tokens, requests, dims: cache.dims, kept };
}

