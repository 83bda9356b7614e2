import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pkg from '../../package.json';
import { type Bm25Data, buildBm25Yielding } from './bm25-index';
import { writePack } from './binary-pack';
import { type DataDir, withStoreLock } from './data-dir';
import { EmbeddingCache, embeddingKey } from './embedding-cache';
import { EmbeddingClient, EmbeddingError, type EmbeddingConfig, endpointFamily } from './embedding-client';
import { FUSION_DEPTH, RRF_K } from './hybrid-search';
import type { IngestPool } from './ingest-pool';
import { ingestSources } from './ingest-sources';
import { KEYWORD_TOKENIZER_NAME } from './keyword-tokenizer';
import { readVersioned, writeVersioned } from './json-file';
import type { Document, FailedDocument, IngestOptions } from './model';
import { DocumentsPayload, type ManifestEmbedding, SNAPSHOT_FORMAT_VERSION, type SnapshotManifest, type SnapshotState } from './snapshot-manifest';
import { BUILDING_SUFFIX, FILES, activateSnapshot, globalBlockOrder, listSnapshots, readActiveId, readManifest } from './snapshot-store';
import type { PauseGate } from './pause-gate';
import { isPinned } from './snapshot-pins';
import { TOKENIZER_NAME } from './tokenizer';
import { normalizeRows } from './vector-index';

export interface BuildProgress {
  stage: 'ingest' | 'embed' | 'index' | 'write';
  done: number;
  total: number;
}

export interface BuildOptions {
  ingest: IngestOptions;
  embedding: EmbeddingConfig;
  /** The embedding API key; never written anywhere. */
  embeddingApiKey: string;
  signal?: AbortSignal;
  onProgress?: (p: BuildProgress) => void;
  pool?: IngestPool;
  /** Retention after the build (see applyRetention); default: the newest 5, no age rule. */
  retention?: RetentionPolicy;
  /** Pauses the build between documents. */
  gate?: PauseGate;
}

export interface BuildResult {
  manifest: SnapshotManifest;
  activated: boolean;
}

/** After this many documents in a row fail to embed, the endpoint is taken as down for this build. */
const EMBED_FAILURES_BEFORE_GIVING_UP = 3;

function newSnapshotId(now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace('.', '').replace('Z', '');
  return `s${t}-${crypto.randomBytes(3).toString('hex')}`;
}

async function fsyncDir(dir: string): Promise<void> {
  const h = await fs.open(dir, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/** Removes folders of builds or deletions that a crashed process left behind (never a finished snapshot). */
async function sweepLeftovers(dir: DataDir): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir.snapshotsDir);
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith(BUILDING_SUFFIX) || n.endsWith('.deleting')) await fs.rm(path.join(dir.snapshotsDir, n), { recursive: true, force: true });
}

async function embedDocuments(
  dir: DataDir,
  documents: Document[],
  config: Extract<EmbeddingConfig, { provider: 'openai-compatible' }>,
  apiKey: string,
  failed: FailedDocument[],
  opts: BuildOptions,
  parentVectors: ParentVectors | null,
  reused: ReadonlySet<string>,
): Promise<{ vectorsByDoc: Map<string, Float32Array[]>; fromParent: Set<string>; embedded: number; cached: number; tokens: number; requests: number; dims: number | null; kept: Document[] }> {
  const cache = new EmbeddingCache(dir.embeddingsDir, endpointFamily(config.base_url), config.model, config.dimensions);
  const client = new EmbeddingClient(config, apiKey);
  const vectorsByKey = new Map<string, Float32Array>();
  /** Each kept document's block vectors, in block order: the vector matrix is laid out from these. */
  const vectorsByDoc = new Map<string, Float32Array[]>();
  /** Documents whose rows were copied from the parent snapshot: already normalised, never touched again. */
  const fromParent = new Set<string>();
  const kept: Document[] = [];
  let embedded = 0;
  let cached = 0;
  let tokens = 0;
  let requests = 0;
  let failuresInARow = 0;
  let lastError: EmbeddingError | null = null;
  for (const [i, doc] of documents.entries()) {
    opts.signal?.throwIfAborted();
    await opts.gate?.passable(opts.signal);
    opts.onProgress?.({ stage: 'embed', done: i, total: documents.length });
    // An unchanged document reuses its rows of the parent's vector file: no hashing, no cache reads.
    const rows = reused.has(doc.path) ? parentVectors?.rowsOf(doc.doc_id, doc.blocks.length) : undefined;
    if (rows) {
      vectorsByDoc.set(doc.doc_id, rows);
      fromParent.add(doc.doc_id);
      cached += rows.length;
      kept.push(doc);
      continue;
    }
    const keys = doc.blocks.map((b) => embeddingKey(b.text));
    const missing: Array<{ key: string; text: string }> = [];
    const seen = new Set<string>();
    for (const [bi, key] of keys.entries()) {
      const hit = vectorsByKey.get(key) ?? (await cache.get(key));
      if (hit) {
        vectorsByKey.set(key, hit);
        cached++;
      } else if (!seen.has(key)) {
        seen.add(key);
        missing.push({ key, text: doc.blocks[bi]!.text });
      }
    }
    if (missing.length && failuresInARow >= EMBED_FAILURES_BEFORE_GIVING_UP && lastError) {
      failed.push({ path: doc.path, stage: 'embed', code: 'upstream_unavailable', message: `not embedded: the endpoint kept failing (${lastError.message})` });
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
        // Durable before it counts: the cache segment is written before the document is kept.
        await cache.putAll(fresh);
        for (const [k, v] of fresh) vectorsByKey.set(k, v);
        failuresInARow = 0;
      } catch (err) {
        if (opts.signal?.aborted || !(err instanceof EmbeddingError)) throw err;
        lastError = err;
        failuresInARow++;
        failed.push({ path: doc.path, stage: 'embed', code: 'upstream_unavailable', message: err.message });
        continue;
      }
    }
    vectorsByDoc.set(doc.doc_id, keys.map((k) => vectorsByKey.get(k)!));
    kept.push(doc);
  }
  return { vectorsByDoc, fromParent, embedded, cached, tokens, requests, dims: cache.dims ?? parentVectors?.dims ?? null, kept };
}

/** The parent snapshot's vector rows by document, when it was embedded with the same endpoint, model and dimensions. */
class ParentVectors {
  private constructor(
    readonly dims: number,
    private readonly matrix: Float32Array,
    private readonly ranges: Map<string, readonly [number, number]>,
  ) {}

  static async load(dir: DataDir, parent: SnapshotManifest | null, config: EmbeddingConfig): Promise<ParentVectors | null> {
    const e = parent?.embedding;
    if (!parent || !e || e.provider !== 'openai-compatible' || config.provider !== 'openai-compatible') return null;
    if (e.family !== endpointFamily(config.base_url) || e.model !== config.model || (config.dimensions !== null && config.dimensions !== e.dimensions)) return null;
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(path.join(dir.snapshotDir(parent.id), FILES.vectors));
    } catch {
      return null; // the embedding cache still has every vector
    }
    const total = parent.documents.reduce((n, d) => n + d.blocks, 0);
    if (bytes.byteLength !== total * e.dimensions * 4) return null;
    // Rows follow the manifest's document order (doc_id order), each document's blocks contiguous.
    const aligned = new Float32Array(total * e.dimensions);
    new Uint8Array(aligned.buffer).set(bytes);
    const ranges = new Map<string, readonly [number, number]>();
    let row = 0;
    for (const d of parent.documents) {
      ranges.set(d.doc_id, [row, d.blocks]);
      row += d.blocks;
    }
    return new ParentVectors(e.dimensions, aligned, ranges);
  }

  rowsOf(docId: string, blocks: number): Float32Array[] | undefined {
    const r = this.ranges.get(docId);
    if (!r || r[1] !== blocks) return undefined;
    return Array.from({ length: blocks }, (_, b) => this.matrix.subarray((r[0] + b) * this.dims, (r[0] + b + 1) * this.dims));
  }
}

/**
 * Builds a snapshot from the sources and activates it when usable (ready or ready_partial). One build
 * at a time (build.lock); the snapshot is written into `<id>.building/` and renamed when complete; the
 * active pointer moves only after that. Cancellation or a crash leaves the previous active snapshot as
 * it was. Unchanged blocks are never embedded twice (embedding cache).
 */
export async function buildSnapshot(dir: DataDir, opts: BuildOptions): Promise<BuildResult> {
  return withStoreLock(
    dir,
    async () => {
      await sweepLeftovers(dir);
      const now = new Date();
      const id = newSnapshotId(now);
      const work = path.join(dir.snapshotsDir, `${id}${BUILDING_SUFFIX}`);
      await fs.mkdir(work, { recursive: true });
      const parent = await readActiveId(dir);
      const parentManifest = parent ? await readManifest(dir, parent).catch(() => null) : null;
      const embeddingInfo = (dims: number | null): ManifestEmbedding =>
        opts.embedding.provider === 'none'
          ? { provider: 'none' }
          : { provider: 'openai-compatible', family: endpointFamily(opts.embedding.base_url), model: opts.embedding.model, dimensions: dims ?? opts.embedding.dimensions ?? 1 };
      const manifest: SnapshotManifest = {
        formatVersion: SNAPSHOT_FORMAT_VERSION,
        id,
        parent,
        state: 'building',
        created_at: now.toISOString(),
        finished_at: null,
        app_version: pkg.version,
        sources: [],
        documents: [],
        failed_documents: [],
        chunking: opts.ingest.chunking,
        tokenizer: TOKENIZER_NAME,
        keyword_tokenizer: KEYWORD_TOKENIZER_NAME,
        embedding: embeddingInfo(null),
        fusion: { method: 'rrf', k: RRF_K, depth: FUSION_DEPTH },
        stats: { documents: 0, blocks: 0, failed_documents: 0, reused_documents: 0, embedded_blocks: 0, cached_embeddings: 0, embedding_tokens: 0, embedding_requests: 0, durations_ms: { ingest: 0, embed: 0, index: 0, write: 0 } },
        error: null,
      };
      try {
        await writeVersioned(path.join(work, FILES.manifest), manifest);
        let t = performance.now();
        const previous = await reusableDocuments(dir, parentManifest, opts.ingest);
        const ingest = await ingestSources(dir, opts.ingest, {
          signal: opts.signal,
          pool: opts.pool,
          previous,
          gate: opts.gate,
          onProgress: (p) => opts.onProgress?.({ stage: 'ingest', done: p.done, total: p.total }),
        });
        manifest.stats.durations_ms.ingest = Math.round(performance.now() - t);
        manifest.sources = ingest.sources;
        const failed = [...ingest.failed_documents];
        let documents = [...ingest.documents].sort((a, b) => (a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0));

        t = performance.now();
        let vectorsByDoc: Map<string, Float32Array[]> | null = null;
        let fromParent = new Set<string>();
        if (opts.embedding.provider !== 'none') {
          const parentVectors = await ParentVectors.load(dir, parentManifest, opts.embedding);
          const e = await embedDocuments(dir, documents, opts.embedding, opts.embeddingApiKey, failed, opts, parentVectors, ingest.reused);
          documents = e.kept;
          vectorsByDoc = e.vectorsByDoc;
          fromParent = e.fromParent;
          manifest.embedding = embeddingInfo(e.dims);
          Object.assign(manifest.stats, { embedded_blocks: e.embedded, cached_embeddings: e.cached, embedding_tokens: e.tokens, embedding_requests: e.requests });
        }
        manifest.stats.durations_ms.embed = Math.round(performance.now() - t);

        opts.signal?.throwIfAborted();
        t = performance.now();
        opts.onProgress?.({ stage: 'index', done: 0, total: 1 });
        const { blockRefs, docRanges } = globalBlockOrder(documents);
        const texts = blockRefs.map(([d, b]) => documents[d]!.blocks[b]!.text);
        const bm25 = await buildBm25Yielding(texts, opts.signal);
        manifest.stats.durations_ms.index = Math.round(performance.now() - t);

        t = performance.now();
        opts.onProgress?.({ stage: 'write', done: 0, total: 1 });
        let matrix: Float32Array | null = null;
        if (vectorsByDoc && manifest.embedding.provider !== 'none') {
          const dims = manifest.embedding.dimensions;
          matrix = new Float32Array(blockRefs.length * dims);
          blockRefs.forEach(([d, b], row) => matrix!.set(vectorsByDoc.get(documents[d]!.doc_id)![b]!, row * dims));
          // Rows copied from the parent are normalised already; normalising again could move their last bits.
          documents.forEach((doc, d) => {
            if (!fromParent.has(doc.doc_id)) normalizeRows(matrix!.subarray(docRanges[d]![0] * dims, docRanges[d]![1] * dims), dims);
          });
        }
        await writeIndexFiles(work, documents, bm25, matrix);
        manifest.stats.durations_ms.write = Math.round(performance.now() - t);

        manifest.documents = documents.map((d) => ({
          doc_id: d.doc_id,
          path: d.path,
          title: d.title,
          content_hash: d.content_hash,
          blocks: d.blocks.length,
          tokens: d.blocks.reduce((n, b) => n + b.token_count, 0),
          reused: ingest.reused.has(d.path),
        }));
        manifest.failed_documents = failed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        const state: SnapshotState = documents.length === 0 && failed.length > 0 ? 'failed' : failed.length > 0 ? 'ready_partial' : 'ready';
        manifest.state = state;
        manifest.error = state === 'failed' ? `no document could be indexed (${failed.length} failed)` : null;
        Object.assign(manifest.stats, {
          documents: documents.length,
          blocks: blockRefs.length,
          failed_documents: failed.length,
          reused_documents: manifest.documents.filter((d) => d.reused).length,
        });
        manifest.finished_at = new Date().toISOString();
        await writeVersioned(path.join(work, FILES.manifest), manifest);
        await fsyncDir(work);
        await fs.rename(work, dir.snapshotDir(id));
        await fsyncDir(dir.snapshotsDir);
      } catch (err) {
        await fs.rm(work, { recursive: true, force: true }).catch(() => undefined);
        throw err;
      }
      // A snapshot that lost documents because the embedding endpoint failed would hide documents the
      // active one still answers from: it is kept (activate it by hand) but the active one stays.
      const usable = manifest.state === 'ready' || manifest.state === 'ready_partial';
      const upstreamFailed = manifest.failed_documents.some((f) => f.stage === 'embed');
      const activated = usable && (!upstreamFailed || parent === null);
      if (activated) await activateSnapshot(dir, id);
      await applyRetention(dir, opts.retention ?? DEFAULT_RETENTION);
      return { manifest, activated };
    },
    'build',
  );
}

/** Writes a snapshot's data files (documents, keyword index, vectors) into a folder, each fsynced. */
export async function writeIndexFiles(folder: string, documents: Document[], bm25: Bm25Data, matrix: Float32Array | null): Promise<void> {
  await writeVersioned(path.join(folder, FILES.documents), { formatVersion: SNAPSHOT_FORMAT_VERSION, documents }, { compact: true });
  await writePack(path.join(folder, FILES.keyword), { terms: bm25.terms }, { offsets: bm25.offsets, blocks: bm25.blocks, tfs: bm25.tfs, docLengths: bm25.docLengths });
  if (!matrix) return;
  const h = await fs.open(path.join(folder, FILES.vectors), 'w');
  try {
    await h.writeFile(new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength));
    await h.sync();
  } finally {
    await h.close();
  }
}

/**
 * The parent snapshot's documents by path, when they were built with the same chunking, tokenizer and
 * document schema: those are the documents an unchanged file may reuse unparsed.
 */
async function reusableDocuments(dir: DataDir, parent: SnapshotManifest | null, ingest: IngestOptions): Promise<Map<string, Document> | undefined> {
  if (!parent || parent.tokenizer !== TOKENIZER_NAME || JSON.stringify(parent.chunking) !== JSON.stringify(ingest.chunking)) return undefined;
  const payload = await readVersioned(path.join(dir.snapshotDir(parent.id), FILES.documents), SNAPSHOT_FORMAT_VERSION, DocumentsPayload).catch(() => null);
  return payload ? new Map(payload.documents.map((d) => [d.path, d])) : undefined;
}

export interface RetentionPolicy {
  /** The newest this many finished snapshots besides the active one are always kept. */
  keep: number;
  /** Snapshots younger than this are kept too (retrieval replay, rollback); null: no age rule. */
  keepDays: number | null;
}

export const DEFAULT_RETENTION: RetentionPolicy = { keep: 5, keepDays: null };

/**
 * Deletes finished snapshots that are neither among the newest `keep` nor younger than `keepDays`;
 * the active snapshot and any snapshot pinned by a running request are never deleted.
 */
export async function applyRetention(dir: DataDir, policy: RetentionPolicy, now = new Date()): Promise<string[]> {
  const active = await readActiveId(dir);
  const finished = (await listSnapshots(dir)).filter((m) => m.state !== 'building' && m.id !== active);
  const deleted: string[] = [];
  for (const m of finished.slice(policy.keep)) {
    if (policy.keepDays !== null && now.getTime() - Date.parse(m.created_at) < policy.keepDays * 86_400_000) continue;
    if (await isPinned(dir, m.id)) continue;
    await fs.rm(dir.snapshotDir(m.id), { recursive: true, force: true });
    deleted.push(m.id);
  }
  return deleted;
}
