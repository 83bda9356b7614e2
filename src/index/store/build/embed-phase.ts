import type { DataDir } from '../../../common/data-dir';
import { failureSentence } from '../../../common/provider-failure';
import { EmbeddingCache, embeddingKey } from '../../embed/embedding-cache';
import { EmbeddingClient, EmbeddingError, type RemoteEmbeddingConfig, endpointFamily } from '../../embed/embedding-client';
import type { PauseGate } from '../../ingest/pause-gate';
import type { Document } from '../../../shared/document';
import type { FailedDocument } from '../../../shared/failed-document';

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

/** Totals of a build's embedding. */
export interface EmbedTotals {
  embedded: number;
  cached: number;
  tokens: number;
  requests: number;
  dims: number | null;
}

/**
 * One batch's vectors: each kept document's block vectors (not yet normalised), in block order. Cached
 * ones are views on the session's row buffer: valid until the next batch is embedded.
 */
export interface EmbedOutcome {
  vectorsByDoc: Map<string, Float32Array[]>;
  kept: Document[];
}

/**
 * A build's embedding, batch by batch: each batch's blocks are looked up in the embedding cache and the
 * rest sent to the endpoint; a document that cannot be embedded fails alone. Nothing of a batch is kept
 * after it (a fresh cache reader per batch: the cache's reader holds what it has read, and a million
 * vectors would be 4 GB), so a build's memory follows its batch, not its collection.
 */
export class EmbedSession {
  private readonly client: EmbeddingClient;
  private readonly totals: EmbedTotals = { embedded: 0, cached: 0, tokens: 0, requests: 0, dims: null };
  private failuresInARow = 0;
  private lastError: EmbeddingError | null = null;
  private done = 0;
  private cache: EmbeddingCache | null = null;
  /** Cached rows of the batch being embedded, one buffer for every batch (see EmbeddingCache.getMany). */
  private rows = new Float32Array(0);

  constructor(
    private readonly dir: DataDir,
    private readonly config: RemoteEmbeddingConfig,
    apiKey: string,
    private readonly failed: FailedDocument[],
    private readonly opts: EmbedPhaseOptions,
    /** Documents the whole build will embed (for progress). */
    private readonly total: number,
  ) {
    this.client = new EmbeddingClient(config, apiKey);
  }

  private newCache(): EmbeddingCache {
    return new EmbeddingCache(this.dir.embeddingsDir, endpointFamily(this.config.base_url), this.config.model, this.config.dimensions);
  }

  async embed(documents: readonly Document[]): Promise<EmbedOutcome> {
    const { opts, failed } = this;
    const cache = (this.cache = this.newCache());
    const vectorsByKey = new Map<string, Float32Array>();
    const vectorsByDoc = new Map<string, Float32Array[]>();
    const kept: Document[] = [];
    const keysOf = documents.map((doc) => doc.blocks.map((b) => embeddingKey(b.text)));
    // One lookup for the whole batch: the cache reads each segment's vectors whole or hit by hit, into
    // this session's row buffer (the batch's matrix is assembled from it before the next batch).
    for (const [k, v] of await cache.getMany(keysOf.flat(), (n) => (this.rows.length >= n ? this.rows : (this.rows = new Float32Array(n))))) vectorsByKey.set(k, v);
    const pending: Array<readonly [string, Float32Array]> = [];
    try {
      for (const [i, doc] of documents.entries()) {
        opts.signal?.throwIfAborted();
        await opts.gate?.passable(opts.signal);
        opts.onProgress?.({ done: this.done++, total: this.total, tokens: this.totals.tokens });
        const keys = keysOf[i]!;
        const missing: Array<{ key: string; text: string }> = [];
        const seen = new Set<string>();
        for (const [bi, key] of keys.entries()) {
          const hit = vectorsByKey.get(key);
          if (hit) this.totals.cached++;
          else if (!seen.has(key)) {
            seen.add(key);
            missing.push({ key, text: doc.blocks[bi]!.text });
          }
        }
        if (missing.length && this.failuresInARow >= EMBED_FAILURES_BEFORE_GIVING_UP && this.lastError) {
          const e = this.lastError;
          failed.push({ path: doc.path, stage: 'embed', code: 'upstream_unavailable', message: `not embedded: the endpoint kept failing (${e.failure ? failureSentence(e.failure) : e.message})` });
          continue;
        }
        if (missing.length) {
          try {
            const r = await this.client.embed(
              missing.map((m) => m.text),
              opts.signal,
            );
            this.totals.tokens += r.tokens;
            this.totals.requests += r.requests;
            this.totals.embedded += missing.length;
            const fresh = missing.map((m, k) => [m.key, r.vectors[k]!] as const);
            for (const [k, v] of fresh) vectorsByKey.set(k, v);
            pending.push(...fresh);
            // Written in groups, not one file per document; what a crash loses is embedded again on resume.
            if (pending.length >= CACHE_FLUSH_EVERY) await cache.putAll(pending.splice(0));
            this.failuresInARow = 0;
          } catch (err) {
            if (opts.signal?.aborted || !(err instanceof EmbeddingError)) throw err;
            this.lastError = err;
            this.failuresInARow++;
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
    this.totals.dims = cache.dims ?? this.totals.dims;
    return { vectorsByDoc, kept };
  }

  /** Merges the cache's small segments (once per build) and returns the totals. */
  async finish(): Promise<EmbedTotals> {
    await (this.cache ?? this.newCache()).compact();
    return { ...this.totals };
  }
}
