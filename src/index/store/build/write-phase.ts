import path from 'node:path';
import { StoreError, errorMessage } from '../../../common/errors';
import type { ReusedFile } from '../../ingest/ingest-sources';
import type { UnreadPage } from '../../../shared/document';
import type { FailedDocument } from '../../../shared/failed-document';
import type { ManifestDocument, ManifestSegment, SnapshotManifest, SnapshotState } from '../snapshot-manifest';
import { FILES } from '../snapshot-store';
import type { StagedFolder } from '../staged-folder';

/** What the manifest records of a document written into the new segment. */
export interface WrittenDocument {
  doc_id: string;
  path: string;
  title: string;
  content_hash: string;
  byte_size: number;
  source_label: string;
  aliases: string[];
  blocks: number;
  tokens: number;
  unread_pages?: UnreadPage[];
}

export const byDocId = <T extends { doc_id: string }>(a: T, b: T) => (a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0);

/** The manifest, compact (builds read and write it on every run), in the staged snapshot folder. */
export async function writeManifest(staged: StagedFolder, manifest: SnapshotManifest): Promise<void> {
  const file = path.join(staged.root, FILES.manifest);
  try {
    await staged.write(file, `${JSON.stringify(manifest)}\n`);
  } catch (err) {
    throw new StoreError('store_io', `cannot write ${file}: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * The manifest's documents: those that stayed in a kept segment keep their entry (with the stat just
 * taken); the new segment's get theirs, a rewritten unchanged file keeping its stat.
 */
export function manifestEntries(
  kept: readonly ManifestSegment[],
  stays: ReadonlyMap<string, ReadonlyArray<ReusedFile<ManifestDocument>>>,
  rewrite: ReadonlyArray<ReusedFile<ManifestDocument>>,
  newDocs: readonly WrittenDocument[],
  newSegment: string,
  mtimes: ReadonlyMap<string, number>,
): ManifestDocument[] {
  const entries: ManifestDocument[] = [];
  for (const sg of kept) for (const r of stays.get(sg.id)!) entries.push({ ...r.previous, byte_size: r.byte_size, mtime_ms: r.mtime_ms, reused: true });
  const rewritten = new Map(rewrite.map((r) => [r.doc_id, r]));
  for (const d of newDocs) {
    const reusedFile = rewritten.get(d.doc_id);
    entries.push({
      doc_id: d.doc_id,
      path: d.path,
      title: d.title,
      content_hash: d.content_hash,
      byte_size: reusedFile ? reusedFile.byte_size : d.byte_size,
      mtime_ms: reusedFile ? reusedFile.mtime_ms : (mtimes.get(d.path) ?? 0),
      source_label: d.source_label,
      aliases: d.aliases,
      blocks: d.blocks,
      tokens: d.tokens,
      reused: reusedFile !== undefined,
      segment: newSegment,
      ...(d.unread_pages ? { unread_pages: d.unread_pages } : {}),
    });
  }
  return entries.sort(byDocId);
}

/** The finished manifest: documents, segments, failures in path order, its state and counts. */
export function finishManifest(manifest: SnapshotManifest, entries: ManifestDocument[], segments: ManifestSegment[], failed: FailedDocument[]): void {
  manifest.documents = entries;
  manifest.segments = segments;
  manifest.failed_documents = failed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const state: SnapshotState = entries.length === 0 && failed.length > 0 ? 'failed' : failed.length > 0 ? 'ready_partial' : 'ready';
  manifest.state = state;
  manifest.error = state === 'failed' ? `no document could be indexed (${failed.length} failed)` : null;
  Object.assign(manifest.stats, {
    documents: entries.length,
    blocks: entries.reduce((n, d) => n + d.blocks, 0),
    failed_documents: failed.length,
    reused_documents: entries.filter((d) => d.reused).length,
  });
  manifest.finished_at = new Date().toISOString();
}
