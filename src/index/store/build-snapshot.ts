import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pkg from '../../../package.json';
import { type DataDir, withStoreLock } from '../../common/data-dir';
import { fsyncDirSync, sweepStaleTempFiles } from '../../common/durable-write';
import { TOKENIZER_NAME } from '../../common/tokenizer';
import { type EmbeddingConfig, endpointFamily } from '../embed/embedding-client';
import { FileMemo } from '../ingest/file-memo';
import type { IngestPool } from '../ingest/ingest-pool';
import { ingestSources } from '../ingest/ingest-sources';
import type { PauseGate } from '../ingest/pause-gate';
import type { IngestOptions } from '../model';
import { FUSION_DEPTH, RRF_K } from '../search/hybrid-search';
import { KEYWORD_TOKENIZER_NAME } from '../search/keyword-tokenizer';
import { EmbedSession } from './build/embed-phase';
import { CarrySource, planSegments, reuseLevel, segmentsIntact } from './build/reuse-phase';
import { finishManifest, manifestEntries, writeManifest } from './build/write-phase';
import { DocumentSpool, type SpooledDocument } from './build/document-spool';
import { scratchDir, writeNewSegment } from './build/segment-phase';
import { CURRENT_SEGMENT_FORMAT } from './segment-format';
import { PARSE_VERSION, reparseReason } from '../blocks/parse-version';
import { removeTree } from './remove-tree';
import { DEFAULT_RETENTION, type RetentionPolicy, applyRetention } from './retention';
import { linkSegment, newSegmentId, segmentDir } from './segment-store';
import { type ManifestDocument, type ManifestEmbedding, type ManifestSegment, SNAPSHOT_FORMAT_VERSION, type SnapshotManifest } from './snapshot-manifest';
import { BUILDING_SUFFIX, DELETING_SUFFIX, FILES, pointActiveTo, readActiveId, readManifest } from './snapshot-store';
import { StagedFolder } from './staged-folder';
import { type EgressItem, type EgressPlan, egressPlan, readConsents, recordConsent } from './egress-consent';
import { DocQaError } from '../../common/errors';

export { DEFAULT_RETENTION, type RetentionPolicy, applyRetention } from './retention';

/**
 * Where a build is: its phase, items done of all in it, and what it has read, made and spent so far
 * (bytes of parsed documents, their blocks, embedding tokens).
 */
export interface BuildProgress {
  stage: 'ingest' | 'embed' | 'index' | 'write';
  done: number;
  total: number;
  bytes: number;
  blocks: number;
  embedding_tokens: number;
  /** A scanned page being read by OCR: the file, and the page's place among the document's scanned pages. */
  ocr?: { path: string; index: number; count: number; page: number };
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
  /**
   * Asked before a source's text is sent to an embedding host for the first time (see egressPlan); the
   * build stops (egress_declined, nothing sent) unless it answers true. Without it, nothing is asked.
   */
  confirmEgress?: (plan: EgressPlan) => Promise<boolean>;
  /**
   * Blocks per batch of the new segment (default BATCH_BLOCKS): what the build holds at once. The
   * snapshot is the same byte for byte whatever the batches (tested with tiny ones).
   */
  batchBlocks?: number;
  /** Told instead of asked when the embedding endpoint is on this machine (the plan's `local`): nothing leaves it. */
  onLocalEgress?: (plan: EgressPlan) => void;
  /** The embedding endpoint is a local model server on this machine (see EgressPlan.local). */
  localEmbedding?: boolean;
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

function newSnapshotId(now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace('.', '').replace('Z', '');
  return `s${t}-${crypto.randomBytes(3).toString('hex')}`;
}

/**
 * Removes what a crashed process left behind: folders of builds or deletions (never a finished
 * snapshot), and stale temporary files of atomic writes beside the registries and cache segments.
 */
async function sweepLeftovers(dir: DataDir): Promise<void> {
  await sweepStaleTempFiles(dir.root);
  for (const family of await fs.readdir(dir.embeddingsDir).catch(() => [] as string[])) await sweepStaleTempFiles(path.join(dir.embeddingsDir, family));
  let names: string[];
  try {
    names = await fs.readdir(dir.snapshotsDir);
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith(BUILDING_SUFFIX) || n.endsWith(DELETING_SUFFIX)) await removeTree(path.join(dir.snapshotsDir, n));
}

/** The first build that would send a source's text to this embedding host asks, and remembers the answer. */
async function askBeforeSending(dir: DataDir, toEmbed: ReadonlyArray<EgressItem>, manifest: SnapshotManifest, opts: BuildOptions): Promise<void> {
  if (!opts.confirmEgress || opts.embedding.provider === 'none') return;
  const plan = egressPlan(toEmbed, manifest.sources, manifest.skipped, await readConsents(dir), opts.embedding.base_url, opts.embedding.model, opts.localEmbedding === true);
  if (!plan) return;
  if (plan.local) {
    // Nothing leaves the machine: the person is told what is embedded where, and not asked (nor again).
    opts.onLocalEgress?.(plan);
    await recordConsent(dir, plan, new Date());
    return;
  }
  const agreed = await opts.confirmEgress(plan);
  opts.signal?.throwIfAborted();
  if (!agreed) throw new DocQaError('egress_declined', `nothing was sent to ${plan.host}: sending ${plan.files} files of ${plan.sources.map((s) => s.label).join(', ')} for embedding was declined; the active snapshot is unchanged`);
  await recordConsent(dir, plan, new Date());
}

/**
 * The manifest of the snapshot this process built last (frozen): usually the parent of its next build,
 * which so does not read and validate again what it has just written.
 */
const lastBuilt = new FileMemo<SnapshotManifest>();

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
        skipped: [],
        chunking: opts.ingest.chunking,
        parse_version: PARSE_VERSION,
        reparse_reason: parentManifest ? reparseReason(parentManifest.parse_version) : null,
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
        const progress = { bytes: 0, blocks: 0, embedding_tokens: 0 };
        // Parsed documents wait on disk until their batch is written: memory follows the batch.
        const scratch = scratchDir(work);
        await fs.mkdir(scratch, { recursive: true });
        const spool = await DocumentSpool.create(path.join(scratch, 'documents.spool'));
        let ingest;
        try {
          ingest = await ingestSources<ManifestDocument, SpooledDocument>(dir, opts.ingest, {
            signal: opts.signal,
            pool: opts.pool,
            previous: reuse === 'none' ? undefined : new Map(parentManifest!.documents.map((d) => [d.path, d])),
            trustMtimeBefore: parentManifest ? Date.parse(parentManifest.created_at) - MTIME_GRANULARITY_MS : undefined,
            gate: opts.gate,
            staged,
            keepSerialized: (doc) => spool.putSerialized(doc),
            onProgress: (p) => {
              progress.bytes = p.bytes;
              progress.blocks = p.blocks;
              opts.onProgress?.({ stage: 'ingest', done: p.done, total: p.total, ...progress, ...(p.ocr ? { ocr: p.ocr } : {}) });
            },
          });
        } catch (err) {
          await spool.dispose();
          throw err;
        }
        manifest.sources = ingest.sources;
        manifest.skipped = ingest.skipped;
        const failed = [...ingest.failed_documents];
        const plan = planSegments(ingest.reused, reuse, parentManifest, ingest.documents.reduce((n, d) => n + d.blocks, 0));
        const dimsOfParent = reuse === 'segments' && parentManifest!.embedding.provider !== 'none' ? parentManifest!.embedding.dimensions : null;
        const carry = new CarrySource(parentFolder, new Map((parentManifest?.segments ?? []).map((sg) => [sg.id, sg])), dimsOfParent);
        manifest.stats.durations_ms.ingest = Math.round(performance.now() - t);

        let session: EmbedSession | null = null;
        if (opts.embedding.provider !== 'none') {
          // Everything that will be sent: parsed documents, and carried ones whose rows cannot be reused.
          const toEmbed = [...ingest.documents, ...(dimsOfParent === null ? plan.rewrite.map((r) => ({ source_label: r.source_label, blocks: r.previous.blocks, tokens: r.previous.tokens })) : [])];
          try {
            await askBeforeSending(dir, toEmbed, manifest, opts);
          } catch (err) {
            await spool.dispose();
            throw err;
          }
          session = new EmbedSession(dir, opts.embedding, opts.embeddingApiKey, failed, {
            signal: opts.signal,
            gate: opts.gate,
            onProgress: (p) => {
              progress.embedding_tokens = p.tokens;
              opts.onProgress?.({ stage: 'embed', done: p.done, total: p.total, ...progress });
            },
          }, toEmbed.length);
        }
        const newSegment = newSegmentId(now.getTime());
        let batchesTotal = 0;
        const built = await writeNewSegment({
          staged,
          folder: segmentDir(work, newSegment),
          scratch: path.join(scratch, newSegment),
          fresh: ingest.documents,
          spool,
          rewrite: plan.rewrite,
          carry,
          carriedDims: dimsOfParent,
          embed: session,
          batchBlocks: opts.batchBlocks,
          signal: opts.signal,
          // Embedding is the long part of a batch when there is any; else the keyword index is.
          // (keyword-only: each batch is a step of 'index'; the merge of their keyword indexes ends it).
          onBatch: (done, total) => {
            batchesTotal = total;
            if (!session) opts.onProgress?.({ stage: 'index', done, total, ...progress });
          },
          onFinishing: () => opts.onProgress?.({ stage: 'index', done: session ? 0 : batchesTotal, total: session ? 1 : Math.max(1, batchesTotal), ...progress }),
        });
        await fs.rm(scratch, { recursive: true, force: true });
        if (built.embedding) {
          const e = built.embedding;
          manifest.embedding = embeddingInfo(e.dims ?? built.dims ?? dimsOfParent);
          Object.assign(manifest.stats, { embedded_blocks: e.embedded, cached_embeddings: e.cached + plan.linkedBlocks + built.carriedBlocks, embedding_tokens: e.tokens, embedding_requests: e.requests });
          progress.embedding_tokens = e.tokens;
        }
        manifest.stats.durations_ms.embed = Math.round(built.durations.embed);
        manifest.stats.durations_ms.index = Math.round(built.durations.index);

        opts.signal?.throwIfAborted();
        t = performance.now();
        opts.onProgress?.({ stage: 'write', done: 0, total: 1, ...progress });
        const withVectors = manifest.embedding.provider !== 'none';
        for (const sg of plan.kept) await linkSegment(staged, segmentDir(parentFolder, sg.id), segmentDir(work, sg.id), sg.format, withVectors);
        const segments: ManifestSegment[] = plan.kept.map((sg) => ({ ...sg }));
        if (built.segment) segments.push({ id: newSegment, format: CURRENT_SEGMENT_FORMAT, ...built.segment });
        manifest.stats.durations_ms.write = Math.round(built.durations.write + performance.now() - t);
        finishManifest(manifest, manifestEntries(plan.kept, plan.stays, plan.rewrite, built.written, newSegment, ingest.mtimes), segments, failed);
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

