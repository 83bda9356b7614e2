import type { DataDir } from '../../../common/data-dir';
import { failureSentence } from '../../../common/provider-failure';
import { EmbeddingCache } from '../../embed/embedding-cache';
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
 * A build's embedding, batch by batch: each batch's blocks are looked up in the embedding cache at once
 * (`lookup`), then each document's vectors are taken from there or the endpoint (`vectorsOf`); a
 * document that cannot be embedded fails alone. Nothing of a batch is kept after it (a fresh cache
 * reader per batch: the cache's reader holds what it has read, and a million vectors would be 4 GB), so
 * a build's memory follows its batch, not its collection.
 */
export class EmbedSession {
  private readonly client: EmbeddingClient;
  private readonly totals: EmbedTotals = { embedded: 0, cached: 0, tokens: 0, requests: 0, dims: null };
  private failuresInARow = 0;
  private lastError: EmbeddingError | null = null;
  private done = 0;
  private cache: EmbeddingCache | null = null;
  /** Cached rows of the last look-up, one buffer for the whole build (see EmbeddingCache.getMany). */
  private rows = new Float32Array(0);
  /** The last look-up's vectors by key (views on `rows`), and those fetched since. */
  private vectors = new Map<string, Float32Array>();
  /** Fetched vectors not yet in the cache. */
  private readonly pending: Array<readonly [string, Float32Array]> = [];

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

  /**
   * Starts a batch: the vectors fetched so far go to the cache, and a fresh cache reader serves the
   * batch's look-ups (a reader keeps what it was given, so one per batch bounds it).
   */
  async beginBatch(): Promise<void> {
    await this.flush();
    this.cache = this.newCache();
    this.vectors = new Map();
  }

  /**
   * Blocks of the batch looked up at once (vectors fetched for the batch so far go to the cache first,
   * so they are found), each segment's rows read whole or hit by hit into this session's row buffer:
   * valid until the next look-up.
   */
  async lookup(keys: readonly string[]): Promise<void> {
    await this.flush();
    const cache = (this.cache ??= this.newCache());
    this.vectors = await cache.getMany(keys, (n) => (this.rows.length >= n ? this.rows : (this.rows = new Float32Array(n))));
    this.totals.dims = cache.dims ?? this.totals.dims;
  }

  /**
   * A document's block vectors (not yet normalised), in block order, from the last look-up or the
   * endpoint; null when it could not be embedded (recorded in `failed`). Cached ones are views on the
   * row buffer: valid until the next look-up.
   */
  async vectorsOf(doc: Document, keys: readonly string[]): Promise<Float32Array[] | null> {
    const { opts, failed, vectors } = this;
    opts.signal?.throwIfAborted();
    await opts.gate?.passable(opts.signal);
    opts.onProgress?.({ done: this.done++, total: this.total, tokens: this.totals.tokens });
    const missing: Array<{ key: string; text: string }> = [];
    const seen = new Set<string>();
    for (const [bi, key] of keys.entries()) {
      if (vectors.has(key)) this.totals.cached++;
      else if (!seen.has(key)) {
        seen.add(key);
        missing.push({ key, text: doc.blocks[bi]!.text });
      }
    }
    if (missing.length && this.failuresInARow >= EMBED_FAILURES_BEFORE_GIVING_UP && this.lastError) {
      const e = this.lastError;
      failed.push({ path: doc.path, stage: 'embed', code: 'upstream_unavailable', message: `not embedded: the endpoint kept failing (${e.failure ? failureSentence(e.failure) : e.message})` });
      return null;
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
        for (const [k, v] of fresh) vectors.set(k, v);
        this.pending.push(...fresh);
        // Written in groups, not one file per document; what a crash loses is embedded again on resume.
        if (this.pending.length >= CACHE_FLUSH_EVERY) await this.flush();
        this.failuresInARow = 0;
      } catch (err) {
        if (opts.signal?.aborted || !(err instanceof EmbeddingError)) throw err;
        this.lastError = err;
        this.failuresInARow++;
        // The failure in words (service, host and port, status, its message, attempts), the same for every host.
        failed.push({ path: doc.path, stage: 'embed', code: 'upstream_unavailable', message: err.failure ? failureSentence(err.failure) : err.message });
        return null;
      }
    }
    return keys.map((k) => vectors.get(k)!);
  }

  /** Writes the vectors fetched so far to the cache (also when cancelled: vectors paid for are kept for the next build). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    await (this.cache ??= this.newCache()).putAll(this.pending.splice(0));
    this.totals.dims = this.cache.dims ?? this.totals.dims;
  }

  /** Merges the cache's small segments (once per build) and returns the totals. */
  async finish(): Promise<EmbedTotals> {
    await this.flush();
    await (this.cache ?? this.newCache()).compact();
    return { ...this.totals };
  }
}
