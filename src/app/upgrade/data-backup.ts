import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { DataDir } from '../../common/data-dir';
import { DocQaError, StoreError, errorMessage } from '../../common/errors';
import { readVersioned, writeVersioned } from '../../common/json-file';
import { readSmallOrWhole, writeDurable } from '../../common/durable-write';

/**
 * `backups/<yyyymmddThhmmssmmm>Z-<from>-<to>/`: what a layout migration backed up before it ran —
 * `backup.json` and a copy of each file under `files/` at its path in the data directory. It is made
 * in `<id>.partial/` and renamed when whole, so a backup folder without the suffix is complete; it is
 * kept after the migration (`docqa data restore-backup` puts it back).
 */
export const BACKUP_FORMAT_VERSION = 1;
export const PARTIAL_SUFFIX = '.partial';

export const BackupRecord = z.object({
  formatVersion: z.literal(BACKUP_FORMAT_VERSION),
  id: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  created_at: z.string(),
  app_version: z.string(),
  /** The files copied, relative to the data directory, with the sha256 and size of their bytes. */
  files: z.array(z.object({ path: z.string(), sha256: z.string(), bytes: z.number().int() })),
  /** Files of the backed-up set that did not exist then (a restore removes them). */
  absent: z.array(z.string()),
});
export type BackupRecord = z.infer<typeof BackupRecord>;

/**
 * What a migration backs up: the files it supersedes, and the ones that say what the directory holds
 * and uses (sources, doc-id registry, active snapshot, active prompt bundle), so a restore returns the
 * directory to the moment before the upgrade. Snapshots, traces, conversations, evaluations, bundles and
 * the embedding cache are neither changed nor superseded by a migration and are not copied.
 */
export const STATE_FILES = ['sources.json', 'documents.json', 'active.json', path.join('prompts', 'state.json')] as const;

export const backupsDir = (dir: DataDir) => path.join(dir.root, 'backups');
const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

/** The bytes of a file, or null when it does not exist. */
export async function readBytes(file: string): Promise<Uint8Array | null> {
  try {
    return await readSmallOrWhole(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StoreError('store_io', `cannot read ${file}: ${errorMessage(err)}`, { cause: err });
  }
}

/** sha256 of each file (null: absent), to prove afterwards that none of them changed. */
export async function hashFiles(dir: DataDir, rel: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const r of rel) {
    const b = await readBytes(path.join(dir.root, r));
    out.set(r, b ? sha256(b) : null);
  }
  return out;
}

function backupId(at: Date, from: number, to: number): string {
  return `${at.toISOString().replace(/[-:]/g, '').replace('.', '').replace(/Z$/, '')}Z-${from}-${to}`;
}

/** Copies the files into a new backup folder and returns its record (the folder is whole once this returns). */
export async function createBackup(dir: DataDir, o: { from: number; to: number; files: readonly string[]; at: Date; appVersion: string }): Promise<BackupRecord & { folder: string }> {
  const id = backupId(o.at, o.from, o.to);
  const folder = path.join(backupsDir(dir), id);
  const partial = folder + PARTIAL_SUFFIX;
  await fs.rm(partial, { recursive: true, force: true });
  const record: BackupRecord = { formatVersion: BACKUP_FORMAT_VERSION, id, from: o.from, to: o.to, created_at: o.at.toISOString(), app_version: o.appVersion, files: [], absent: [] };
  try {
    for (const rel of [...new Set(o.files)].sort()) {
      const bytes = await readBytes(path.join(dir.root, rel));
      if (!bytes) {
        record.absent.push(rel);
        continue;
      }
      const copy = path.join(partial, 'files', rel);
      await fs.mkdir(path.dirname(copy), { recursive: true });
      await writeDurable(copy, bytes);
      record.files.push({ path: rel, sha256: sha256(bytes), bytes: bytes.byteLength });
    }
    await writeVersioned(path.join(partial, 'backup.json'), record);
    await fs.rename(partial, folder);
  } catch (err) {
    await removeBackup(dir, partial);
    throw err;
  }
  return { ...record, folder };
}

/** Removes a backup folder, and `backups/` with it when nothing else is left there (best effort: used on the way out of a failure). */
export async function removeBackup(dir: DataDir, folder: string): Promise<void> {
  await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
  await fs.rmdir(backupsDir(dir)).catch(() => undefined);
}

/** Removes backups a migration that died left half-made (the caller holds the locks a migration takes). */
export async function sweepPartialBackups(dir: DataDir): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(backupsDir(dir));
  } catch {
    return;
  }
  for (const n of names) if (n.endsWith(PARTIAL_SUFFIX)) await fs.rm(path.join(backupsDir(dir), n), { recursive: true, force: true });
}

export async function readBackup(dir: DataDir, id: string): Promise<BackupRecord> {
  if (!/^\d{8}T\d{9}Z-\d+-\d+$/.test(id)) throw new DocQaError('invalid_argument', `"${id}" is not a backup id (see \`docqa data status\`)`);
  const record = await readVersioned(path.join(backupsDir(dir), id, 'backup.json'), BACKUP_FORMAT_VERSION, BackupRecord);
  if (!record) throw new DocQaError('backup_not_found', `no backup ${id} in ${backupsDir(dir)} (see \`docqa data status\`)`);
  return record;
}

/** Every whole backup, oldest first. */
export async function listBackups(dir: DataDir): Promise<BackupRecord[]> {
  let names: string[];
  try {
    names = (await fs.readdir(backupsDir(dir))).filter((n) => !n.endsWith(PARTIAL_SUFFIX)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new StoreError('store_io', `cannot list ${backupsDir(dir)}: ${errorMessage(err)}`, { cause: err });
  }
  const out: BackupRecord[] = [];
  for (const n of names) out.push(await readBackup(dir, n));
  return out;
}

/** The backed-up bytes of each file, checked against the hash recorded when they were copied. */
export async function backupContents(dir: DataDir, record: BackupRecord): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const f of record.files) {
    const file = path.join(backupsDir(dir), record.id, 'files', f.path);
    const bytes = await readBytes(file);
    if (!bytes || sha256(bytes) !== f.sha256) throw new StoreError('store_corrupt', `${file} is ${bytes ? 'not the file that was backed up (its sha256 differs)' : 'missing'}; backup ${record.id} cannot be restored`);
    out.set(f.path, bytes);
  }
  return out;
}
