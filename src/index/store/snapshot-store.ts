import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { Bm25Index, type KeywordData, inMemoryKeyword } from '../search/bm25-index';
import type { DataDir } from '../../common/data-dir';
import { DocQaError, StoreError, errorMessage } from '../../common/errors';
import { parseOrCorrupt, readVersioned, writeVersioned } from '../../common/json-file';
import type { Document } from '../../shared/document';
import { ActivePointer, type ManifestSegment, OLDEST_READ_SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION, SnapshotManifest } from './snapshot-manifest';
import { readSegmentDocuments, readSegmentKeyword, scatterSegmentVectors, segmentDir } from './segment-store';
import { FileRows, readCodes, readSegmentDocuments2, readSegmentKeyword2 } from './segment-reader';
import { SEGMENT_FILES_2, type SegmentFormat } from './segment-format';
import { type Int8Scorer, allocateInt8, maxShardRows } from '../search/dot-kernel';
import { QuantizedVectors, type VectorShard } from '../search/quantized-vectors';
import { quantizeRows } from '../search/quantize';
import { Slicer } from '../../common/slicer';
import { PostingsCache } from './postings-cache';
import { isPinned } from './snapshot-pins';
import { removeTree } from './remove-tree';

/**
 * Snapshots on disk: `snapshots/<id>/` holds manifest.json and `segments/<segment id>/` (see
 * segment-store); a build writes into `<id>.building/` and renames it when complete, so a snapshot
 * folder is complete and immutable. `active.json` points at the active one and is replaced atomically
 * (temp + fsync + rename), after the snapshot it names is fully on disk.
 */
export const FILES = { manifest: 'manifest.json' } as const;
export const BUILDING_SUFFIX = '.building';
export const DELETING_SUFFIX = '.deleting';

export async function readManifest(dir: DataDir, id: string): Promise<SnapshotManifest | null> {
  const file = path.join(dir.snapshotDir(id), FILES.manifest);
  const raw = await readVersioned(file, SNAPSHOT_FORMAT_VERSION, z.looseObject({ formatVersion: z.number() }));
  if (!raw) return null;
  if (raw.formatVersion < OLDEST_READ_SNAPSHOT_FORMAT) {
    throw new StoreError('store_old_version', `snapshot ${id} was written by an older DocQA (format ${raw.formatVersion}, now ${SNAPSHOT_FORMAT_VERSION}); run \`docqa index\` to build a current one, or delete it`);
  }
  // Format 2 is format 3 with every segment of format 1 (the schema's default).
  return parseOrCorrupt(file, SnapshotManifest, raw);
}

/** Every finished snapshot (and builds in progress, as `building`), newest first. */
export async function listSnapshots(dir: DataDir): Promise<SnapshotManifest[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir.snapshotsDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new StoreError('store_io', `cannot list ${dir.snapshotsDir}: ${errorMessage(err)}`);
  }
  const out: SnapshotManifest[] = [];
  for (const n of names) {
    if (n.endsWith(DELETING_SUFFIX)) continue;
    const m = await readManifest(dir, n).catch(() => null);
    if (m) out.push(n.endsWith(BUILDING_SUFFIX) ? { ...m, state: 'building' } : m);
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
}

export async function readActiveId(dir: DataDir): Promise<string | null> {
  return (await readVersioned(dir.activeFile, 1, ActivePointer))?.snapshot_id ?? null;
}

/** Switches the active pointer, after checking that the snapshot is usable and loads. */
export async function activateSnapshot(dir: DataDir, id: string): Promise<SnapshotManifest> {
  const m = await readManifest(dir, id);
  if (!m) throw new DocQaError('snapshot_not_found', `no snapshot ${id}`);
  if (m.state !== 'ready' && m.state !== 'ready_partial') throw new DocQaError('snapshot_not_usable', `snapshot ${id} is ${m.state} and cannot be activated`);
  await loadSnapshot(dir, id);
  await pointActiveTo(dir, id);
  return m;
}

/**
 * Moves the active pointer without the load check: for a build that has just written, fsynced and
 * renamed the snapshot into place (loading it whole would cost as much as the incremental build).
 */
export async function pointActiveTo(dir: DataDir, id: string): Promise<void> {
  // A damaged pointer may be replaced (that is how it is repaired); one a newer DocQA wrote may not.
  await readActiveId(dir).catch((err: unknown) => {
    if (err instanceof StoreError && err.code === 'store_future_version') throw err;
  });
  await writeVersioned(dir.activeFile, { formatVersion: 1 as const, snapshot_id: id });
}

export async function deleteSnapshot(dir: DataDir, id: string): Promise<void> {
  if ((await readActiveId(dir)) === id) throw new DocQaError('snapshot_active', `snapshot ${id} is active; activate another one before deleting it`);
  if (await isPinned(dir, id)) throw new DocQaError('snapshot_pinned', `snapshot ${id} is being read by a running request; try again when it has finished`);
  // A snapshot of an older format cannot be used but can be deleted.
  const exists = await readManifest(dir, id).catch((err: unknown) => (err instanceof StoreError && err.code === 'store_old_version' ? true : Promise.reject(err)));
  if (!exists) throw new DocQaError('snapshot_not_found', `no snapshot ${id}`);
  await removeSnapshotFolder(dir, id);
}

/**
 * Removes a snapshot's folder, renamed first so that a half-deleted folder never looks like a snapshot
 * (a crash leaves `<id>.deleting`, which the next build removes).
 */
export async function removeSnapshotFolder(dir: DataDir, id: string): Promise<void> {
  const trash = path.join(dir.snapshotsDir, `${id}${DELETING_SUFFIX}`);
  fsSync.renameSync(dir.snapshotDir(id), trash);
  await removeTree(trash);
}

/** One snapshot, loaded for search: documents in doc_id order, blocks globally numbered in that order. */
export interface LoadedSnapshot {
  manifest: SnapshotManifest;
  documents: Document[];
  /** Global block number → [document index, block index]. */
  blockRefs: Array<readonly [number, number]>;
  /** Per document, its global block range [start, end). */
  docRanges: Array<readonly [number, number]>;
  bm25: Bm25Index;
  vectors: QuantizedVectors | null;
}

export function globalBlockOrder(documents: readonly Document[]): { blockRefs: Array<readonly [number, number]>; docRanges: Array<readonly [number, number]> } {
  const blockRefs: Array<readonly [number, number]> = [];
  const docRanges: Array<readonly [number, number]> = [];
  documents.forEach((d, di) => {
    const start = blockRefs.length;
    d.blocks.forEach((_, bi) => blockRefs.push([di, bi] as const));
    docRanges.push([start, blockRefs.length] as const);
  });
  return { blockRefs, docRanges };
}

interface LoadedSegment {
  documents: Document[];
  /** Each document's block count (a format-2 segment's blocks are made only when read). */
  blockCounts: number[];
  keyword: KeywordData;
  /** Blocks the segment's files hold (live or not). */
  blocks: number;
  folder: string;
  format: SegmentFormat;
}

async function loadSegment(id: string, root: string, seg: ManifestSegment, slicer: Slicer, postings: PostingsCache): Promise<LoadedSegment> {
  const folder = segmentDir(root, seg.id);
  let documents: Document[];
  let blockCounts: number[];
  let keyword: KeywordData;
  if (seg.format === 2) {
    ({ documents, blockCounts } = await readSegmentDocuments2(folder, seg.blocks, slicer));
    await slicer.tick();
    keyword = await readSegmentKeyword2(folder, seg.blocks, postings);
    await slicer.tick();
  } else {
    const [docs, bm25] = await Promise.all([readSegmentDocuments(folder), readSegmentKeyword(folder)]);
    documents = docs;
    blockCounts = docs.map((d) => d.blocks.length);
    keyword = inMemoryKeyword(bm25);
  }
  const blocks = blockCounts.reduce((n, c) => n + c, 0);
  if (documents.length !== seg.documents || blocks !== seg.blocks || keyword.docLengths.length !== blocks) {
    throw new StoreError('store_corrupt', `snapshot ${id}: segment ${seg.id} holds ${documents.length} documents / ${blocks} blocks (keyword index: ${keyword.docLengths.length}), the manifest says ${seg.documents} / ${seg.blocks}`);
  }
  return { documents, blockCounts, keyword, blocks, folder, format: seg.format };
}

/** Rows of a format-1 segment quantised per read: 16 MB of float32 at 1,024 dimensions. */
const QUANTIZE_ROWS = 4096;

/**
 * A segment's rows as int8 shards (at most maxShardRows each, one WebAssembly memory per shard):
 * read from vectors.q8 (format 2), or quantised at load from vectors.f32 (format 1, which has no
 * codes). Either way the exact rows stay in vectors.f32, read when a query rescores its candidates.
 */
async function loadShards(seg: LoadedSegment, dims: number, toGlobal: Int32Array | null, base: number, slicer: Slicer): Promise<VectorShard[]> {
  const file = path.join(seg.folder, SEGMENT_FILES_2.vectors);
  const per = maxShardRows(dims);
  const shards: VectorShard[] = [];
  for (let first = 0; first < seg.blocks; first += per) {
    const rows = Math.min(per, seg.blocks - first);
    let scorer: Int8Scorer;
    if (seg.format === 2) scorer = await readCodes(seg.folder, seg.blocks, dims, first, rows);
    else {
      scorer = allocateInt8(rows, dims);
      const piece = new Float32Array(Math.min(rows, QUANTIZE_ROWS) * dims);
      for (let r = 0; r < rows; r += QUANTIZE_ROWS) {
        const n = Math.min(QUANTIZE_ROWS, rows - r);
        const part = piece.subarray(0, n * dims);
        await scatterSegmentVectors(seg.folder, seg.blocks, dims, [[first + r, 0, n]], part);
        quantizeRows(part, dims, scorer.codes.subarray(r * dims, (r + n) * dims), scorer.scales.subarray(r, r + n));
        await slicer.tick();
      }
    }
    shards.push({ scorer, toGlobal: toGlobal ? toGlobal.subarray(first, first + rows) : null, base: base + first, exact: new FileRows(file, dims, seg.blocks, first) });
  }
  return shards;
}

/**
 * Loads a snapshot for search, in bounded reads and short slices of work (the extension host stays
 * responsive while a large one loads): documents (format-2 blocks read their texts from the segment's
 * bytes), the keyword index (a format-2 segment's postings stay on disk), and the vectors as int8
 * shards (their float32 rows stay on disk for rescoring).
 */
export async function loadSnapshot(dir: DataDir, id: string): Promise<LoadedSnapshot> {
  const root = dir.snapshotDir(id);
  const manifest = await readManifest(dir, id);
  if (!manifest) throw new DocQaError('snapshot_not_found', `no snapshot ${id}`);
  if (manifest.state !== 'ready' && manifest.state !== 'ready_partial') throw new DocQaError('snapshot_not_usable', `snapshot ${id} is ${manifest.state}`);
  const slicer = new Slicer();
  const postings = new PostingsCache();
  const segments: LoadedSegment[] = [];
  for (const seg of manifest.segments) segments.push(await loadSegment(id, root, seg, slicer, postings));
  // The live documents, wherever they are, in doc_id order: global block numbers (and so every
  // tie-break) are the same as in a snapshot built in one piece.
  const liveIn = new Map(manifest.documents.map((d) => [d.doc_id, d.segment]));
  const live: Array<{ doc: Document; blocks: number; segment: number; localStart: number }> = [];
  segments.forEach((seg, si) => {
    let local = 0;
    seg.documents.forEach((doc, i) => {
      const blocks = seg.blockCounts[i]!;
      if (liveIn.get(doc.doc_id) === manifest.segments[si]!.id) live.push({ doc, blocks, segment: si, localStart: local });
      local += blocks;
    });
  });
  if (live.length !== manifest.documents.length) throw new StoreError('store_corrupt', `snapshot ${id}: ${manifest.documents.length - live.length} documents are missing from their segments`);
  live.sort((a, b) => (a.doc.doc_id < b.doc.doc_id ? -1 : a.doc.doc_id > b.doc.doc_id ? 1 : 0));
  await slicer.tick();
  const documents = live.map((l) => l.doc);
  const docRanges: Array<readonly [number, number]> = [];
  let total = 0;
  for (const l of live) {
    docRanges.push([total, total + l.blocks] as const);
    total += l.blocks;
  }
  // One segment holding exactly the live documents is the snapshot as is: no mapping.
  const whole = segments.length === 1 && segments[0]!.blocks === total;
  const toGlobal = segments.map((seg) => (whole ? null : new Int32Array(seg.blocks).fill(-1)));
  live.forEach((l, di) => {
    const map = toGlobal[l.segment];
    const [start, end] = docRanges[di]!;
    if (map) for (let k = 0; k < end - start; k++) map[l.localStart + k] = start + k;
  });
  await slicer.tick();
  const bm25 = await Bm25Index.load(
    segments.map((seg, si) => ({ data: seg.keyword, toGlobal: toGlobal[si]! })),
    total,
    () => slicer.tick(),
  );
  let vectors: QuantizedVectors | null = null;
  if (manifest.embedding.provider !== 'none') {
    const dims = manifest.embedding.dimensions;
    const shards: VectorShard[] = [];
    for (const [si, seg] of segments.entries()) shards.push(...(await loadShards(seg, dims, toGlobal[si]!, 0, slicer)));
    vectors = new QuantizedVectors(shards, dims, total);
  }
  return withLazyBlockRefs({ manifest, documents, docRanges, bm25, vectors });
}

/**
 * The snapshot with `blockRefs` made on first read (then kept): a million [document, block] pairs are
 * not built at load, only when a tool first needs them.
 */
function withLazyBlockRefs(s: Omit<LoadedSnapshot, 'blockRefs'>): LoadedSnapshot {
  const out = s as LoadedSnapshot;
  Object.defineProperty(out, 'blockRefs', {
    enumerable: true,
    configurable: true,
    get() {
      const refs: Array<readonly [number, number]> = [];
      s.docRanges.forEach(([start, end], di) => {
        for (let b = 0; b < end - start; b++) refs.push([di, b] as const);
      });
      Object.defineProperty(out, 'blockRefs', { value: refs, enumerable: true, configurable: true, writable: true });
      return refs;
    },
  });
  return out;
}

/** The active snapshot, loaded; null when none was ever activated. */
export async function loadActiveSnapshot(dir: DataDir): Promise<LoadedSnapshot | null> {
  const id = await readActiveId(dir);
  return id ? loadSnapshot(dir, id) : null;
}
