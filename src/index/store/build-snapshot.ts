import crypto from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import pkg from '../../../package.json';
import { buildBm25Yielding, keywordFields } from '../search/bm25-index';
import { type DataDir, withStoreLock } from '../../common/data-dir';
import { EmbeddingCache, embeddingKey } from '../embed/embedding-cache';
import { EmbeddingClient, EmbeddingError, type EmbeddingConfig, endpointFamily } from '../embed/embedding-client';
import { FUSION_DEPTH, RRF_K } from '../search/hybrid-search';
import type { IngestPool } from '../ingest/ingest-pool';
import { ingestSources, type ReusedFile } from '../ingest/ingest-sources';
import { KEYWORD_TOKENIZER_NAME } from '../search/keyword-tokenizer';
import type { Document, FailedDocument, IngestOptions } from '../model';
import { type ManifestDocument, type ManifestEmbedding, type ManifestSegment, SNAPSHOT_FORMAT_VERSION, type SnapshotManifest, type SnapshotState } from './snapshot-manifest';
import { BUILDING_SUFFIX, DELETING_SUFFIX, FILES, pointActiveTo, readActiveId, readManifest, removeSnapshotFolder } from './snapshot-store';
import { fsyncDirSync } from '../../common/durable-write';
import { StoreError, errorMessage } from '../../common/errors';
import { planMerges } from './segment-plan';
import { type RowRun, SEGMENT_FILES, linkSegment, newSegmentId, readSegmentDocuments, scatterSegmentVectors, segmentDir, writeSegment } from './segment-store';
import type { PauseGate } from '../ingest/pause-gate';
import { isPinned } from './snapshot-pins';
import { StagedFolder } from './staged-folder';
import { FileMemo } from '../ingest/file-memo';
import { removeTree } from './remove-tree';
import { TOKENIZER_NAME } from '../../common/tokenizer';
import { normalizeRows } from '../search/vector-index';

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

/**
 * Coarsest modification-time step among common file systems (FAT: 2 s). A file's size and time are
 * trusted only when it was last modified at least this long before the parent build began.
 */
const MTIME_GRANULARITY_MS = 2000;

/** Fresh vectors are written to the embedding cache in groups of about this many. */
const CACHE_FLUSH_EVERY = 1024;

/** After this many documents in a row fail to embed, the endpoint is taken as down for this build. */
const EMBED_FAILURES_BEFORE_GIVING_UP = 3;

function newSnapshotId(now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace('.', '').replace('Z', '');
  return `s${t}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Removes folders of builds or deletions that a crashed process left behind (never a finished snapshot). */
async function sweepLeftovers(dir: DataDir): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir.snapshotsDir);
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith(BUILDING_SUFFIX) || n.endsWith(DELETING_SUFFIX)) await removeTree(path.join(dir.snapshotsDir, n));
}

interface EmbedOutcome {
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
async function embedDocuments(
  dir: DataDir,
  documents: readonly Document[],
  config: Extract<EmbeddingConfig, { provider: 'openai-compatible' }>,
  apiKey: string,
  failed: FailedDocument[],
  opts: BuildOptions,
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
      opts.onProgress?.({ stage: 'embed', done: i, total: documents.length });
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
          for (const [k, v] of fresh) vectorsByKey.set(k, v);
          pending.push(...fresh);
          // Written in groups, not one file per document; what a crash loses is embedded again on resume.
          if (pending.length >= CACHE_FLUSH_EVERY) await cache.putAll(pending.splice(0));
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
  } finally {
    // Also when cancelled: vectors already paid for are kept for the next build.
    await cache.putAll(pending.splice(0));
  }
  await cache.compact();
  return { vectorsByDoc, embedded, cached, tokens, requests, dims: cache.dims, kept };
}

/**
 * How much of the parent a build can take over. `segments`: its segments as they are (same chunking,
 * tokenizers and embedding); `parse`: only its parse results (the embedding changed); `none`.
 */
type ReuseLevel = 'segments' | 'parse' | 'none';

function reuseLevel(parent: SnapshotManifest | null, opts: BuildOptions): ReuseLevel {
  if (!parent || parent.tokenizer !== TOKENIZER_NAME || JSON.stringify(parent.chunking) !== JSON.stringify(opts.ingest.chunking)) return 'none';
  if (parent.keyword_tokenizer !== KEYWORD_TOKENIZER_NAME) return 'parse';
  const e = parent.embedding;
  const c = opts.embedding;
  if (e.provider === 'none' && c.provider === 'none') return 'segments';
  if (e.provider !== 'openai-compatible' || c.provider !== 'openai-compatible') return 'parse';
  const same = e.family === endpointFamily(c.base_url) && e.model === c.model && (c.dimensions === null || c.dimensions === e.dimensions);
  return same ? 'segments' : 'parse';
}

/** Every segment file the manifest relies on is there, vectors of the right size (a few stats, no reads). */
function segmentsIntact(folder: string, m: SnapshotManifest): boolean {
  const dims = m.embedding.provider === 'none' ? null : m.embedding.dimensions;
  return m.segments.every((sg) => {
    const at = segmentDir(folder, sg.id);
    try {
      fsSync.statSync(path.join(at, SEGMENT_FILES.documents));
      fsSync.statSync(path.join(at, SEGMENT_FILES.keyword));
      return dims === null || fsSync.statSync(path.join(at, SEGMENT_FILES.vectors)).size === sg.blocks * dims * 4;
    } catch {
      return false;
    }
  });
}

/**
 * The manifest of the snapshot this process built last (frozen): usually the parent of its next build,
 * which so does not read and validate again what it has just written.
 */
const lastBuilt = new FileMemo<SnapshotManifest>();

/** The manifest, compact (builds read and write it on every run), in the staged snapshot folder. */
async function writeManifest(staged: StagedFolder, manifest: SnapshotManifest): Promise<void> {
  const file = path.join(staged.root, FILES.manifest);
  try {
    await staged.write(file, `${JSON.stringify(manifest)}\n`);
  } catch (err) {
    throw new StoreError('store_io', `cannot write ${file}: ${errorMessage(err)}`, { cause: err });
  }
}

const byDocId = <T extends { doc_id: string }>(a: T, b: T) => (a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0);

/** A document taken from a parent segment into the new one, with its vector rows when they still fit. */
interface Carried {
  doc: Document;
  rows: Float32Array | null;
}

/**
 * Reads the parent's documents (and, with `dims`, only their normalised vector rows) that must be
 * rewritten into the new segment, patched with their current doc_id and source.
 */
async function carryOver(parentFolder: string, files: ReadonlyArray<ReusedFile<ManifestDocument>>, dims: number | null): Promise<Carried[]> {
  const bySegment = new Map<string, Array<ReusedFile<ManifestDocument>>>();
  for (const f of files) {
    const list = bySegment.get(f.previous.segment) ?? [];
    list.push(f);
    bySegment.set(f.previous.segment, list);
  }
  const out: Carried[] = [];
  for (const [segment, list] of bySegment) {
    const folder = segmentDir(parentFolder, segment);
    const at = new Map<string, { doc: Document; row: number }>();
    let total = 0;
    for (const d of await readSegmentDocuments(folder)) {
      at.set(d.doc_id, { doc: d, row: total });
      total += d.blocks.length;
    }
    const found = list.map((f) => {
      const hit = at.get(f.previous.doc_id);
      if (!hit) throw new StoreError('store_corrupt', `segment ${segment} of the parent snapshot lacks ${f.previous.path}`);
      return { f, ...hit };
    });
    // Only the carried documents' rows are read, packed one after the other.
    const runs: RowRun[] = [];
    let packed = 0;
    for (const { doc, row } of found) {
      runs.push([row, packed, doc.blocks.length]);
      packed += doc.blocks.length;
    }
    const rows = dims === null ? null : new Float32Array(packed * dims);
    if (rows && dims !== null) await scatterSegmentVectors(folder, total, dims, runs, rows);
    found.forEach(({ f, doc }, k) => {
      const [, start, n] = runs[k]!;
      out.push({
        doc: { ...doc, doc_id: f.doc_id, source_label: f.source_label, aliases: f.aliases },
        rows: rows && dims !== null ? rows.subarray(start * dims, (start + n) * dims) : null,
      });
    });
  }
  return out;
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
    async (held) => {
      await sweepLeftovers(dir);
      const now = new Date();
      const id = newSnapshotId(now);
      const work = path.join(dir.snapshotsDir, `${id}${BUILDING_SUFFIX}`);
      const staged = new StagedFolder(work);
      const parent = await readActiveId(dir);
      const parentFile = parent ? path.join(dir.snapshotDir(parent), FILES.manifest) : '';
      const parentManifest = parent ? (lastBuilt.get(parentFile) ?? (await readManifest(dir, parent).catch(() => null))) : null;
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
        segments: [],
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
        await writeManifest(staged, manifest);
        let t = performance.now();
        const parentFolder = parent ? dir.snapshotDir(parent) : '';
        // A parent whose segment files were damaged or removed by hand is not built upon: a full build.
        const reuse = parentManifest && segmentsIntact(parentFolder, parentManifest) ? reuseLevel(parentManifest, opts) : 'none';
        const ingest = await ingestSources<ManifestDocument>(dir, opts.ingest, {
          signal: opts.signal,
          pool: opts.pool,
          previous: reuse === 'none' ? undefined : new Map(parentManifest!.documents.map((d) => [d.path, d])),
          trustMtimeBefore: parentManifest ? Date.parse(parentManifest.created_at) - MTIME_GRANULARITY_MS : undefined,
          gate: opts.gate,
          staged,
          onProgress: (p) => opts.onProgress?.({ stage: 'ingest', done: p.done, total: p.total }),
        });
        manifest.sources = ingest.sources;
        const failed = [...ingest.failed_documents];

        // Unchanged documents stay in their parent segment unless it is merged, or the document's id or
        // source changed (then it is rewritten, still unparsed).
        const stays = new Map<string, Array<ReusedFile<ManifestDocument>>>();
        const rewrite: Array<ReusedFile<ManifestDocument>> = [];
        for (const r of ingest.reused) {
          const p = r.previous;
          const same = reuse === 'segments' && r.doc_id === p.doc_id && r.source_label === p.source_label && JSON.stringify(r.aliases) === JSON.stringify(p.aliases);
          if (!same) rewrite.push(r);
          else {
            const list = stays.get(p.segment);
            if (list) list.push(r);
            else stays.set(p.segment, [r]);
          }
        }
        const parentSegments = reuse === 'segments' ? parentManifest!.segments : [];
        const uses = parentSegments.map((sg) => ({ id: sg.id, blocks: sg.blocks, live: (stays.get(sg.id) ?? []).reduce((n, r) => n + r.previous.blocks, 0) }));
        const incoming = [...rewrite.map((r) => r.previous.blocks), ...ingest.documents.map((d) => d.blocks.length)].reduce((a, b) => a + b, 0);
        const merged = planMerges(uses, incoming);
        for (const id of merged) rewrite.push(...(stays.get(id) ?? []));
        const keptSegments = parentSegments.filter((sg) => !merged.has(sg.id) && (stays.get(sg.id)?.length ?? 0) > 0);
        const dimsOfParent = reuse === 'segments' && parentManifest!.embedding.provider !== 'none' ? parentManifest!.embedding.dimensions : null;
        const carried = await carryOver(parentFolder, rewrite, dimsOfParent);
        manifest.stats.durations_ms.ingest = Math.round(performance.now() - t);

        t = performance.now();
        // Documents of the new segment: carried ones with their vector rows, and the rest, embedded.
        const needsEmbedding = (c: Carried) => opts.embedding.provider !== 'none' && !c.rows;
        let fresh: Document[] = [...ingest.documents, ...carried.filter(needsEmbedding).map((c) => c.doc)];
        const withRows = carried.filter((c) => !needsEmbedding(c)).map((c) => c.doc);
        const rowsOf = new Map<string, Float32Array>();
        for (const c of carried) if (c.rows) rowsOf.set(c.doc.doc_id, c.rows);
        let vectorsByDoc = new Map<string, Float32Array[]>();
        let dims: number | null = dimsOfParent;
        if (opts.embedding.provider !== 'none') {
          const e = await embedDocuments(dir, fresh, opts.embedding, opts.embeddingApiKey, failed, opts);
          fresh = e.kept;
          vectorsByDoc = e.vectorsByDoc;
          dims = e.dims ?? dims;
          const linkedBlocks = uses.reduce((n, u) => n + (merged.has(u.id) ? 0 : u.live), 0);
          const carriedBlocks = carried.reduce((n, c) => n + (c.rows ? c.doc.blocks.length : 0), 0);
          manifest.embedding = embeddingInfo(dims);
          Object.assign(manifest.stats, { embedded_blocks: e.embedded, cached_embeddings: e.cached + linkedBlocks + carriedBlocks, embedding_tokens: e.tokens, embedding_requests: e.requests });
        }
        manifest.stats.durations_ms.embed = Math.round(performance.now() - t);

        opts.signal?.throwIfAborted();
        t = performance.now();
        opts.onProgress?.({ stage: 'index', done: 0, total: 1 });
        const newDocs = [...withRows, ...fresh].sort(byDocId);
        const { texts, headings } = keywordFields(newDocs);
        const bm25 = newDocs.length ? await buildBm25Yielding(texts, headings, opts.signal) : null;
        manifest.stats.durations_ms.index = Math.round(performance.now() - t);

        t = performance.now();
        opts.onProgress?.({ stage: 'write', done: 0, total: 1 });
        const withVectors = manifest.embedding.provider !== 'none';
        for (const sg of keptSegments) await linkSegment(staged, segmentDir(parentFolder, sg.id), segmentDir(work, sg.id), withVectors);
        const segments: ManifestSegment[] = keptSegments.map((sg) => ({ ...sg }));
        const newSegment = newSegmentId(now.getTime());
        if (bm25) {
          let matrix: Float32Array | null = null;
          if (manifest.embedding.provider !== 'none') {
            const d = manifest.embedding.dimensions;
            matrix = new Float32Array(texts.length * d);
            let row = 0;
            for (const doc of newDocs) {
              const carriedRows = rowsOf.get(doc.doc_id);
              if (carriedRows) matrix.set(carriedRows, row * d); // normalised already; normalising again could move their last bits
              else {
                vectorsByDoc.get(doc.doc_id)!.forEach((v, b) => matrix!.set(v, (row + b) * d));
                normalizeRows(matrix.subarray(row * d, (row + doc.blocks.length) * d), d);
              }
              row += doc.blocks.length;
            }
          }
          await writeSegment(staged, segmentDir(work, newSegment), newDocs, bm25, matrix);
          segments.push({ id: newSegment, documents: newDocs.length, blocks: texts.length });
        }
        manifest.stats.durations_ms.write = Math.round(performance.now() - t);

        const entries: ManifestDocument[] = [];
        // Documents that stayed in a kept segment keep their entry (with the stat just taken).
        for (const sg of keptSegments) for (const r of stays.get(sg.id)!) entries.push({ ...r.previous, byte_size: r.byte_size, mtime_ms: r.mtime_ms, reused: true });
        const rewritten = new Map(rewrite.map((r) => [r.doc_id, r]));
        for (const d of newDocs) {
          const reusedFile = rewritten.get(d.doc_id);
          entries.push({
            doc_id: d.doc_id,
            path: d.path,
            title: d.title,
            content_hash: d.content_hash,
            byte_size: reusedFile ? reusedFile.byte_size : d.byte_size,
            mtime_ms: reusedFile ? reusedFile.mtime_ms : (ingest.mtimes.get(d.path) ?? 0),
            source_label: d.source_label,
            aliases: d.aliases,
            blocks: d.blocks.length,
            tokens: d.blocks.reduce((n, b) => n + b.token_count, 0),
            reused: reusedFile !== undefined,
            segment: newSegment,
          });
        }
        manifest.documents = entries.sort(byDocId);
        manifest.segments = segments;
        manifest.failed_documents = failed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        const documents = manifest.documents;
        const state: SnapshotState = documents.length === 0 && failed.length > 0 ? 'failed' : failed.length > 0 ? 'ready_partial' : 'ready';
        manifest.state = state;
        manifest.error = state === 'failed' ? `no document could be indexed (${failed.length} failed)` : null;
        Object.assign(manifest.stats, {
          documents: documents.length,
          blocks: documents.reduce((n, d) => n + d.blocks, 0),
          failed_documents: failed.length,
          reused_documents: documents.filter((d) => d.reused).length,
        });
        manifest.finished_at = new Date().toISOString();
        await writeManifest(staged, manifest);
        // Every file of the snapshot is durable before its folder is renamed into view.
        // Nothing becomes visible (registry, snapshot, pointer) unless this build still holds the lock.
        await staged.sync(() => held.assertHeld());
        held.assertHeld();
        await fs.rename(work, dir.snapshotDir(id));
        fsyncDirSync(dir.snapshotsDir);
        lastBuilt.remember(path.join(dir.snapshotDir(id), FILES.manifest), manifest);
      } catch (err) {
        await removeTree(work).catch(() => undefined);
        throw err;
      }
      // A snapshot that lost documents because the embedding endpoint failed would hide documents the
      // active one still answers from: it is kept (activate it by hand) but the active one stays.
      const usable = manifest.state === 'ready' || manifest.state === 'ready_partial';
      const upstreamFailed = manifest.failed_documents.some((f) => f.stage === 'embed');
      const activated = usable && (!upstreamFailed || parent === null);
      if (activated) {
        held.assertHeld();
        await pointActiveTo(dir, id);
      }
      await applyRetention(dir, opts.retention ?? DEFAULT_RETENTION);
      return { manifest, activated };
    },
    'build',
  );
}

export interface RetentionPolicy {
  /** The newest this many finished snapshots besides the active one are always kept. */
  keep: number;
  /** Snapshots younger than this are kept too (retrieval replay, rollback); null: no age rule. */
  keepDays: number | null;
}

export const DEFAULT_RETENTION: RetentionPolicy = { keep: 5, keepDays: null };

/** `s<yyyymmdd>T<hhmmssmmm>-<hex>`, as newSnapshotId makes them: the id says when the build began. */
const ID_TIME = /^s(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})-[0-9a-f]+$/;

function timeOfId(id: string): number | null {
  const m = ID_TIME.exec(id);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!) : null;
}

/**
 * Deletes finished snapshots that are neither among the newest `keep` nor younger than `keepDays`;
 * the active snapshot and any snapshot pinned by a running request are never deleted. Ages come from
 * the ids (no manifest is read for them), so retention stays cheap however many documents the
 * snapshots hold; snapshots of an older format are aged and removed the same way.
 */
export async function applyRetention(dir: DataDir, policy: RetentionPolicy, now = new Date()): Promise<string[]> {
  const active = await readActiveId(dir);
  let names: string[];
  try {
    names = await fs.readdir(dir.snapshotsDir);
  } catch {
    return [];
  }
  const finished: Array<{ id: string; time: number }> = [];
  for (const id of names) {
    if (id === active || id.endsWith(BUILDING_SUFFIX) || id.endsWith(DELETING_SUFFIX)) continue;
    let time = timeOfId(id);
    if (time === null) {
      // Not named by a build (made by hand or by a tool): its manifest says when, or it is left alone.
      const m = await readManifest(dir, id).catch(() => null);
      if (!m) continue;
      time = Date.parse(m.created_at);
    }
    finished.push({ id, time });
  }
  finished.sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const deleted: string[] = [];
  for (const m of finished.slice(policy.keep)) {
    if (policy.keepDays !== null && now.getTime() - m.time < policy.keepDays * 86_400_000) continue;
    if (await isPinned(dir, m.id)) continue;
    try {
      await removeSnapshotFolder(dir, m.id);
      deleted.push(m.id);
    } catch {
      // Gone already (another process deleted it), or not removable now (a file held open on Windows):
      // housekeeping must not fail the build that just succeeded; the next build tries again (a
      // half-removed one is `.deleting`, which it sweeps).
    }
  }
  return deleted;
}
