import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { type Bm25Data, Bm25Index } from '../search/bm25-index';
import type { DataDir } from '../../common/data-dir';
import { DocQaError, StoreError, errorMessage } from '../../common/errors';
import { parseOrCorrupt, readVersioned, writeVersioned } from '../../common/json-file';
import type { Document } from '../model';
import { ActivePointer, SNAPSHOT_FORMAT_VERSION, SnapshotManifest } from './snapshot-manifest';
import { type RowRun, readSegmentDocuments, readSegmentKeyword, scatterSegmentVectors, segmentDir } from './segment-store';
import { VectorIndex } from '../search/vector-index';
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
  if (raw.formatVersion < SNAPSHOT_FORMAT_VERSION) {
    throw new StoreError('store_old_version', `snapshot ${id} was written by an older DocQA (format ${raw.formatVersion}, now ${SNAPSHOT_FORMAT_VERSION}); run \`docqa index\` to build a current one, or delete it`);
  }
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
  vectors: VectorIndex | null;
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
  bm25: Bm25Data;
  folder: string;
}

export async function loadSnapshot(dir: DataDir, id: string): Promise<LoadedSnapshot> {
  const root = dir.snapshotDir(id);
  const manifest = await readManifest(dir, id);
  if (!manifest) throw new DocQaError('snapshot_not_found', `no snapshot ${id}`);
  if (manifest.state !== 'ready' && manifest.state !== 'ready_partial') throw new DocQaError('snapshot_not_usable', `snapshot ${id} is ${manifest.state}`);
  const segments: LoadedSegment[] = await Promise.all(
    manifest.segments.map(async (seg) => {
      const folder = segmentDir(root, seg.id);
      const [documents, bm25] = await Promise.all([readSegmentDocuments(folder), readSegmentKeyword(folder)]);
      const blocks = documents.reduce((n, d) => n + d.blocks.length, 0);
      if (documents.length !== seg.documents || blocks !== seg.blocks || bm25.docLengths.length !== blocks) {
        throw new StoreError('store_corrupt', `snapshot ${id}: segment ${seg.id} holds ${documents.length} documents / ${blocks} blocks (keyword index: ${bm25.docLengths.length}), the manifest says ${seg.documents} / ${seg.blocks}`);
      }
      return { documents, bm25, folder };
    }),
  );
  // The live documents, wherever they are, in doc_id order: global block numbers (and so every
  // tie-break) are the same as in a snapshot built in one piece.
  const liveIn = new Map(manifest.documents.map((d) => [d.doc_id, d.segment]));
  const live: Array<{ doc: Document; segment: number; localStart: number }> = [];
  segments.forEach((seg, si) => {
    let local = 0;
    for (const doc of seg.documents) {
      if (liveIn.get(doc.doc_id) === manifest.segments[si]!.id) live.push({ doc, segment: si, localStart: local });
      local += doc.blocks.length;
    }
  });
  if (live.length !== manifest.documents.length) throw new StoreError('store_corrupt', `snapshot ${id}: ${manifest.documents.length - live.length} documents are missing from their segments`);
  live.sort((a, b) => (a.doc.doc_id < b.doc.doc_id ? -1 : a.doc.doc_id > b.doc.doc_id ? 1 : 0));
  const documents = live.map((l) => l.doc);
  const { blockRefs, docRanges } = globalBlockOrder(documents);
  const total = blockRefs.length;
  // One segment holding exactly the live documents is the snapshot as is: no mapping, no copy.
  const whole = segments.length === 1 && segments[0]!.bm25.docLengths.length === total;
  const toGlobal = segments.map((seg) => (whole ? null : new Int32Array(seg.bm25.docLengths.length).fill(-1)));
  live.forEach((l, di) => {
    const map = toGlobal[l.segment];
    const [start, end] = docRanges[di]!;
    if (map) for (let k = 0; k < end - start; k++) map[l.localStart + k] = start + k;
  });
  const bm25 = new Bm25Index(
    segments.map((seg, si) => ({ data: seg.bm25, toGlobal: toGlobal[si]! })),
    total,
  );
  let vectors: VectorIndex | null = null;
  if (manifest.embedding.provider !== 'none') {
    const dims = manifest.embedding.dimensions;
    // Every row is overwritten below, since the runs cover every live document's blocks; the memory is
    // never zero-filled first (40 MB per 10k blocks cost as much as a read).
    const index = VectorIndex.allocate(total, dims);
    const { matrix } = index;
    // Each segment's live rows go straight to their place in doc_id order (one run for a whole snapshot).
    const runs: RowRun[][] = segments.map(() => []);
    live.forEach((l, di) => {
      const [start, end] = docRanges[di]!;
      const list = runs[l.segment]!;
      const last = list[list.length - 1];
      if (last && last[0] + last[2] === l.localStart && last[1] + last[2] === start) list[list.length - 1] = [last[0], last[1], last[2] + end - start];
      else list.push([l.localStart, start, end - start]);
    });
    for (const [si, seg] of segments.entries()) await scatterSegmentVectors(seg.folder, seg.bm25.docLengths.length, dims, runs[si]!, matrix);
    vectors = index;
  }
  return { manifest, documents, blockRefs, docRanges, bm25, vectors };
}

/** The active snapshot, loaded; null when none was ever activated. */
export async function loadActiveSnapshot(dir: DataDir): Promise<LoadedSnapshot | null> {
  const id = await readActiveId(dir);
  return id ? loadSnapshot(dir, id) : null;
}
