import crypto from 'node:crypto';
import { z } from 'zod';
import { type DataDir, withStoreLock } from './data-dir';
import { readVersioned, writeVersioned } from './json-file';

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
 * are kept, so a file that comes back later is recognised. Pure: returns the new entries.
 */
export function assignDocIds(entries: readonly RegistryEntry[], seen: readonly SeenFile[]): { ids: Map<string, string>; entries: RegistryEntry[] } {
  const byPath = new Map(entries.map((e) => [e.path, { ...e }]));
  const seenPaths = new Set(seen.map((s) => s.path));
  const taken = new Set(entries.map((e) => e.doc_id));
  const ids = new Map<string, string>();
  // Registered documents whose file was not seen at its old path, by content: rename candidates.
  const vanished = new Map<string, RegistryEntry[]>();
  for (const e of [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    if (seenPaths.has(e.path)) continue;
    const list = vanished.get(e.content_hash) ?? [];
    list.push(e);
    vanished.set(e.content_hash, list);
  }
  const fresh: SeenFile[] = [];
  for (const s of seen) {
    const known = byPath.get(s.path);
    if (known) {
      known.content_hash = s.content_hash;
      ids.set(s.path, known.doc_id);
    } else fresh.push(s);
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
  const out = [...byPath.values()].sort((a, b) => (a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0));
  return { ids, entries: out };
}

export async function loadRegistry(dir: DataDir): Promise<RegistryEntry[]> {
  return (await readVersioned(dir.documentsFile, DOCUMENTS_FORMAT_VERSION, DocumentsFile))?.entries ?? [];
}

/** Assigns ids for a scan and persists the registry atomically under the store lock. */
export async function registerDocuments(dir: DataDir, seen: readonly SeenFile[]): Promise<Map<string, string>> {
  return withStoreLock(dir, async () => {
    const before = await loadRegistry(dir);
    const { ids, entries } = assignDocIds(before, seen);
    // Entries come out sorted by doc_id, so an unchanged registry compares equal and is not rewritten.
    // Compact: it lists every file ever seen.
    if (JSON.stringify(entries) !== JSON.stringify(before)) await writeVersioned(dir.documentsFile, { formatVersion: DOCUMENTS_FORMAT_VERSION, entries }, { compact: true });
    return ids;
  });
}
