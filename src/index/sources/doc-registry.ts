import crypto from 'node:crypto';
import { z } from 'zod';
import type { DataDir } from '../../common/data-dir';
import { FileMemo } from '../ingest/file-memo';
import { readVersioned, writeVersioned } from '../../common/json-file';
import type { StagedFolder } from '../store/staged-folder';

export const DOCUMENTS_FORMAT_VERSION = 1;

export const RegistryEntry = z.object({
  doc_id: z.string(),
  /** Where the document was last seen. */
  path: z.string(),
  /** sha256 of its bytes when last seen: how a moved or renamed file is recognised. */
  content_hash: z.string(),
});
export type RegistryEntry = z.infer<typeof RegistryEntry>;

export const DocumentsFile = z.object({
  formatVersion: z.literal(DOCUMENTS_FORMAT_VERSION),
  entries: z.array(RegistryEntry),
});
export type DocumentsFile = z.infer<typeof DocumentsFile>;

export interface SeenFile {
  path: string;
  content_hash: string;
}

function newDocId(p: string, taken: ReadonlySet<string>): string {
  for (let n = 0; ; n++) {
    const id = `d${crypto.createHash('sha256').update(n === 0 ? p : `${p}\0${n}`).digest('hex').slice(0, 10)}`;
    if (!taken.has(id)) return id;
  }
}

/**
 * Gives every file seen in a scan its doc_id: a known path keeps its id (even when its content changed);
 * a new path whose content equals a registered document that is no longer where it was takes over that
 * id (a move or rename); anything else gets a fresh id derived from its path. Entries of files not seen
 * are kept, so a file that comes back later is recognised. Pure: returns the new entries (sorted by
 * doc_id) and whether they differ from the old ones.
 */
export function assignDocIds(entries: readonly RegistryEntry[], seen: readonly SeenFile[]): { ids: Map<string, string>; entries: RegistryEntry[]; changed: boolean } {
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const ids = new Map<string, string>();
  let changed = false;
  const fresh: SeenFile[] = [];
  const seenPaths = new Set<string>();
  for (const s of seen) {
    seenPaths.add(s.path);
    const known = byPath.get(s.path);
    if (!known) fresh.push(s);
    else {
      if (known.content_hash !== s.content_hash) {
        byPath.set(s.path, { ...known, content_hash: s.content_hash });
        changed = true;
      }
      ids.set(s.path, known.doc_id);
    }
  }
  if (fresh.length > 0) {
    changed = true;
    const taken = new Set(entries.map((e) => e.doc_id));
    // Registered documents whose file was not seen at its old path, by content: rename candidates.
    const vanished = new Map<string, RegistryEntry[]>();
    for (const e of entries.filter((e) => !seenPaths.has(e.path)).sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const list = vanished.get(e.content_hash) ?? [];
      list.push(e);
      vanished.set(e.content_hash, list);
    }
    for (const s of [...fresh].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const moved = vanished.get(s.content_hash)?.shift();
      if (moved) {
        byPath.delete(moved.path);
        byPath.set(s.path, { doc_id: moved.doc_id, path: s.path, content_hash: s.content_hash });
        ids.set(s.path, moved.doc_id);
        continue;
      }
      const id = newDocId(s.path, taken);
      taken.add(id);
      byPath.set(s.path, { doc_id: id, path: s.path, content_hash: s.content_hash });
      ids.set(s.path, id);
    }
  }
  const out = [...byPath.values()].sort((a, b) => (a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0));
  return { ids, entries: out, changed };
}

/** The registry this process wrote last (entries are never mutated: assignDocIds copies). */
const lastWritten = new FileMemo<readonly RegistryEntry[]>();

export async function loadRegistry(dir: DataDir): Promise<readonly RegistryEntry[]> {
  return lastWritten.get(dir.documentsFile) ?? (await readVersioned(dir.documentsFile, DOCUMENTS_FORMAT_VERSION, DocumentsFile))?.entries ?? [];
}

/**
 * Assigns ids for a scan and persists the registry atomically. Only builds and scans write the registry,
 * and they hold the data directory's build lock (see ingestSources), so it needs no lock of its own.
 * With `staged` (a snapshot being built), the new registry replaces the old one when that snapshot's
 * files are synced, in the same pass instead of an fsync of its own: a build that fails or crashes
 * leaves the registry as it was. Either way ids stay consistent, since the next scan derives the same
 * ids again (from paths, and from content for moves).
 */
export async function registerDocuments(dir: DataDir, seen: readonly SeenFile[], staged?: StagedFolder): Promise<Map<string, string>> {
  const before = await loadRegistry(dir);
  const { ids, entries, changed } = assignDocIds(before, seen);
  if (!changed) return ids;
  const file: DocumentsFile = { formatVersion: DOCUMENTS_FORMAT_VERSION, entries };
  if (staged) {
    // Compact: it lists every file ever seen.
    await staged.writeAndMoveOut(REGISTRY_STAGED_NAME, `${JSON.stringify(file)}\n`, dir.documentsFile, () => lastWritten.remember(dir.documentsFile, entries));
  } else {
    await writeVersioned(dir.documentsFile, file, { compact: true });
    lastWritten.remember(dir.documentsFile, entries);
  }
  return ids;
}

/** The registry's name inside a staged snapshot folder, until the build commits. */
const REGISTRY_STAGED_NAME = 'documents.registry.json';
