import { existsSync } from 'node:fs';
import { z } from 'zod';
import { BlockView } from '../tools/tool';
import type { DataDir } from '../common/data-dir';
import { BlockLocation } from '../shared/block-location';
import { blockOf, docIndex } from '../index/store/block-by-ref';
import type { SnapshotLru } from '../index/store/snapshot-lru';
import { type LoadedSnapshot, readManifest } from '../index/store/snapshot-store';
import { openSnapshotHandle } from '../tools/snapshot-handle';

/** A citation chip's block: its ids, and the snapshot the answer was made from when known. */
export const BlockRequest = z.object({ doc_id: z.string(), block_id: z.string(), snapshot_id: z.string().optional() });
export type BlockRequest = z.infer<typeof BlockRequest>;

/** Which snapshot answered: the one asked for, or the active one (the one asked for is gone, or none was named). */
const SnapshotUsed = z.enum(['named', 'active']);

export const BlockLookup = z.discriminatedUnion('found', [
  z.object({
    found: z.literal(true),
    snapshot_id: z.string(),
    snapshot_used: SnapshotUsed,
    // The block as the tools show it.
    ...BlockView.shape,
    /** Where the block sits in its source, as the index keeps it (line range, or PDF page). */
    location: BlockLocation,
    /** The source file, and whether it is still there (a chip to a removed file says so). */
    path: z.string(),
    /** The bytes the block was read from (the document's content hash): a view can tell the file changed since. */
    content_hash: z.string(),
    file_exists: z.boolean(),
  }),
  z.object({
    found: z.literal(false),
    snapshot_id: z.string().nullable(),
    snapshot_used: SnapshotUsed.nullable(),
    reason: z.enum(['no_snapshot', 'document_not_found', 'block_not_found']),
    message: z.string(),
  }),
]);
export type BlockLookup = z.infer<typeof BlockLookup>;

/** The block in one loaded snapshot (documents are in doc_id order; blocks are few per document). */
export function findBlock(s: LoadedSnapshot, req: BlockRequest, used: z.infer<typeof SnapshotUsed>): BlockLookup {
  const base = { snapshot_id: s.manifest.id, snapshot_used: used };
  const di = docIndex(s).get(req.doc_id);
  const doc = di === undefined ? undefined : s.documents[di];
  if (!doc) return { found: false, ...base, reason: 'document_not_found', message: `document ${req.doc_id} is not in snapshot ${s.manifest.id} (removed from the sources, or not indexed)` };
  const block = blockOf(doc, req.block_id);
  if (!block) return { found: false, ...base, reason: 'block_not_found', message: `“${doc.title}” in snapshot ${s.manifest.id} has no block ${req.block_id} (the document changed since)` };
  return {
    found: true,
    ...base,
    ref: `${doc.doc_id}#${block.block_id}`,
    doc_id: doc.doc_id,
    block_id: block.block_id,
    doc_title: doc.title,
    source_label: doc.source_label,
    section_path: block.section_path,
    text: block.text,
    location: block.location,
    path: doc.path,
    content_hash: doc.content_hash,
    file_exists: existsSync(doc.path),
  };
}

/**
 * A cited block for a chip (hover text, the spot to open): from the snapshot the answer was made from
 * while it exists and is usable, else from the active one, saying which. Snapshots come through the
 * application's LRU (a chip hovered twice loads nothing) and are pinned only while read.
 */
export async function lookupBlock(dir: DataDir, lru: SnapshotLru, req: BlockRequest): Promise<BlockLookup> {
  // An id from a webview names a folder: anything but a plain name is no snapshot of ours.
  const plain = req.snapshot_id !== undefined && /^[\w.-]+$/.test(req.snapshot_id) && !req.snapshot_id.includes('..');
  const named = plain ? await readManifest(dir, req.snapshot_id!).catch(() => null) : null;
  const usable = named !== null && (named.state === 'ready' || named.state === 'ready_partial');
  const handle = await openSnapshotHandle(dir, lru, usable ? named.id : undefined);
  if (!handle) return { found: false, snapshot_id: null, snapshot_used: null, reason: 'no_snapshot', message: 'no snapshot is active, and the one the answer was made from is gone' };
  try {
    return findBlock(handle.snapshot, req, usable ? 'named' : 'active');
  } finally {
    await handle.release();
  }
}
