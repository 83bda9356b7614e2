import fs from 'node:fs/promises';
import path from 'node:path';
import { Bm25Index } from './bm25-index';
import { readPack } from './binary-pack';
import type { DataDir } from './data-dir';
import { DocQaError, StoreError, errorMessage } from './errors';
import { readVersioned, writeVersioned } from './json-file';
import type { Document } from './model';
import { ActivePointer, DocumentsPayload, SNAPSHOT_FORMAT_VERSION, SnapshotManifest } from './snapshot-manifest';
import { VectorIndex } from './vector-index';
import { readWhole } from './read-file';
import { isPinned } from './snapshot-pins';

/**
 * Snapshots on disk: `snapshots/<id>/` holds manifest.json, documents.json, keyword.pack and (unless
 * keyword-only) vectors.f32; a build writes into `<id>.building/` and renames it when complete, so a
 * snapshot folder is complete and immutable. `active.json` points at the active one and is replaced
 * atomically (temp + fsync + rename), after the snapshot it names is fully on disk.
 */
export const FILES = { manifest: 'manifest.json', documents: 'documents.json', keyword: 'keyword.pack', vectors: 'vectors.f32' } as const;
export const BUILDING_SUFFIX = '.building';

export async function readManifest(dir: DataDir, id: string): Promise<SnapshotManifest | null> {
  return readVersioned(path.join(dir.snapshotDir(id), FILES.manifest), SNAPSHOT_FORMAT_VERSION, SnapshotManifest);
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
  await writeVersioned(dir.activeFile, { formatVersion: 1 as const, snapshot_id: id });
  return m;
}

export async function deleteSnapshot(dir: DataDir, id: string): Promise<void> {
  if ((await readActiveId(dir)) === id) throw new DocQaError('snapshot_active', `snapshot ${id} is active; activate another one before deleting it`);
  if (await isPinned(dir, id)) throw new DocQaError('snapshot_pinned', `snapshot ${id} is being read by a running request; try again when it has finished`);
  if (!(await readManifest(dir, id))) throw new DocQaError('snapshot_not_found', `no snapshot ${id}`);
  // Rename first so that a half-deleted folder never looks like a snapshot.
  const trash = path.join(dir.snapshotsDir, `${id}.deleting`);
  await fs.rename(dir.snapshotDir(id), trash);
  await fs.rm(trash, { recursive: true, force: true });
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

export async function loadSnapshot(dir: DataDir, id: string): Promise<LoadedSnapshot> {
  const root = dir.snapshotDir(id);
  const manifest = await readManifest(dir, id);
  if (!manifest) throw new DocQaError('snapshot_not_found', `no snapshot ${id}`);
  if (manifest.state !== 'ready' && manifest.state !== 'ready_partial') throw new DocQaError('snapshot_not_usable', `snapshot ${id} is ${manifest.state}`);
  const payload = await readVersioned(path.join(root, FILES.documents), SNAPSHOT_FORMAT_VERSION, DocumentsPayload);
  if (!payload) throw new StoreError('store_corrupt', `snapshot ${id} has no ${FILES.documents}`);
  const { blockRefs, docRanges } = globalBlockOrder(payload.documents);
  const pack = await readPack(path.join(root, FILES.keyword));
  const a = pack.arrays;
  const bm25 = new Bm25Index({
    terms: (pack.meta as { terms: string[] }).terms,
    offsets: a.offsets as Uint32Array,
    blocks: a.blocks as Uint32Array,
    tfs: a.tfs as Uint16Array,
    docLengths: a.docLengths as Uint32Array,
  });
  if (bm25.size !== blockRefs.length) throw new StoreError('store_corrupt', `snapshot ${id}: keyword index has ${bm25.size} blocks, documents have ${blockRefs.length}`);
  let vectors: VectorIndex | null = null;
  if (manifest.embedding.provider !== 'none') {
    const dims = manifest.embedding.dimensions;
    const matrix = new Float32Array(blockRefs.length * dims);
    try {
      await readWhole(path.join(root, FILES.vectors), new Uint8Array(matrix.buffer));
    } catch (err) {
      throw new StoreError('store_corrupt', `snapshot ${id}: vectors.f32 unreadable: ${errorMessage(err)}`, { cause: err });
    }
    vectors = new VectorIndex(matrix, dims);
  }
  return { manifest, documents: payload.documents, blockRefs, docRanges, bm25, vectors };
}

/** The active snapshot, loaded; null when none was ever activated. */
export async function loadActiveSnapshot(dir: DataDir): Promise<LoadedSnapshot | null> {
  const id = await readActiveId(dir);
  return id ? loadSnapshot(dir, id) : null;
}
