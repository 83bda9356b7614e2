import fs from 'node:fs/promises';
import path from 'node:path';
import { type DataDir, withStoreLock } from '../../common/data-dir';
import { DATA_LAYOUT_VERSION, LAYOUT_FORMAT_VERSION, type LayoutMarker, readLayout, writeLayout } from '../../common/data-layout';
import { DocQaError, errorMessage } from '../../common/errors';
import { loadActiveSnapshot } from '../../index/store/snapshot-store';
import { STATE_FILES, type BackupRecord, createBackup, hashFiles, removeBackup, sweepPartialBackups } from './data-backup';
import { LAYOUT_MIGRATIONS, type LayoutMigration } from './layout-migrations';

export interface OpenOptions {
  appVersion: string;
  now: () => Date;
}

export type OpenOutcome = { kind: 'absent' } | { kind: 'current'; layout: number } | { kind: 'created'; layout: number } | { kind: 'migrated'; from: number; to: number; backup: BackupRecord | null };

/** The data directory's own entries that hold nothing (locks and their owners). */
const TRANSIENT = /\.lock(\.owner)?$/;

async function entries(dir: DataDir): Promise<string[] | null> {
  try {
    return (await fs.readdir(dir.root)).filter((n) => !TRANSIENT.test(n));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new DocQaError('store_io', `cannot read data directory ${dir.root}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Whether the active snapshot loads: the self-check asks that a migration leave it no worse. */
async function activeLoads(dir: DataDir): Promise<string | null> {
  try {
    await loadActiveSnapshot(dir);
    return null;
  } catch (err) {
    return errorMessage(err);
  }
}

/** The migrations, all three data-directory locks held, so no build, sources or prompts write runs meanwhile (any DocQA version takes them). */
export function underAllLocks<T>(dir: DataDir, fn: () => Promise<T>): Promise<T> {
  return withStoreLock(dir, () => withStoreLock(dir, () => withStoreLock(dir, fn, 'prompts'), 'store'), 'build');
}

/** The marker of a directory at this DocQA's layout, with how it got there (empty: born at it). */
const atCurrentLayout = (migrations: LayoutMarker['migrations']): LayoutMarker => ({ formatVersion: LAYOUT_FORMAT_VERSION, layout: DATA_LAYOUT_VERSION, migrations });

async function removeQuietly(files: readonly string[]): Promise<void> {
  for (const f of files) await fs.rm(f, { force: true }).catch(() => undefined);
}

/**
 * Opens a data directory at this DocQA's layout. A newer layout is refused (nothing changed); an older
 * one is migrated copy-on-write: back up → write the new files beside the old → self-check (every
 * written file parses, the old files are byte for byte as they were, the active snapshot loads if it
 * did before) → switch (replace layout.json) → keep the backup. Any failure before the switch removes
 * what the attempt wrote and says so: the directory is as it was. A directory that does not exist is
 * left alone; an empty one is marked with the current layout.
 */
export async function openDataDir(dir: DataDir, o: OpenOptions): Promise<OpenOutcome> {
  const first = await readLayout(dir);
  if (first.layout === DATA_LAYOUT_VERSION) return { kind: 'current', layout: first.layout };
  if ((await entries(dir)) === null) {
    // Born at the current layout, so that a directory this DocQA made never needs upgrading (which a
    // read-only or full disk would refuse). A disk that refuses even this: the first write says so.
    try {
      await dir.ensure();
      await writeLayout(dir, atCurrentLayout([]));
      return { kind: 'created', layout: DATA_LAYOUT_VERSION };
    } catch {
      return { kind: 'absent' };
    }
  }
  return underAllLocks(dir, async () => {
    // Another process may have migrated while this one waited for the locks.
    const { layout, marker } = await readLayout(dir);
    if (layout === DATA_LAYOUT_VERSION) return { kind: 'current', layout };
    await sweepPartialBackups(dir);
    if ((await entries(dir))!.length === 0) {
      await writeLayout(dir, atCurrentLayout([]));
      return { kind: 'created', layout: DATA_LAYOUT_VERSION };
    }
    return migrate(dir, layout, marker, o);
  });
}

async function migrate(dir: DataDir, from: number, marker: LayoutMarker | null, o: OpenOptions): Promise<OpenOutcome> {
  const steps = LAYOUT_MIGRATIONS.filter((m) => m.from >= from);
  if (steps[0]?.from !== from || steps.at(-1)?.to !== DATA_LAYOUT_VERSION) throw new DocQaError('store_migration_failed', `this DocQA cannot upgrade a data directory of layout ${from} (${dir.root}); nothing was changed`);
  const superseded = steps.flatMap((m) => m.supersedes);
  const written = steps.flatMap((m: LayoutMigration) => m.writes.map((w) => path.join(dir.root, w)));
  const before = await hashFiles(dir, [...STATE_FILES, ...superseded]);
  const loadedBefore = (await activeLoads(dir)) === null;
  let backup: (BackupRecord & { folder: string }) | null = null;
  const at = o.now();
  try {
    // Left by an attempt that died before its switch, with the temporary files of its atomic writes
    // (no live write of them can be in progress: they are written only under the locks held here).
    const ours = new Set([...written.map((w) => path.basename(w)), 'layout.json']);
    const temps = (await entries(dir))!.filter((n) => ours.has(n.replace(/\.\d+$/, '')) && /\.\d+$/.test(n));
    for (const f of [...written, ...temps.map((n) => path.join(dir.root, n))]) await fs.rm(f, { force: true });
    // Nothing to back up (no state file, nothing superseded): nothing an upgrade could change either.
    if ([...before.values()].some((h) => h !== null)) backup = await createBackup(dir, { from, to: DATA_LAYOUT_VERSION, files: [...STATE_FILES, ...superseded], at, appVersion: o.appVersion });
    for (const step of steps) await step.run(dir);
    for (const step of steps) await step.check(dir);
    const after = await hashFiles(dir, [...before.keys()]);
    for (const [rel, hash] of before) if (after.get(rel) !== hash) throw new Error(`${rel} changed during the migration`);
    if (loadedBefore) {
      const problem = await activeLoads(dir);
      if (problem) throw new Error(`the active snapshot no longer loads: ${problem}`);
    }
    const record = { from, to: DATA_LAYOUT_VERSION, at: at.toISOString(), app_version: o.appVersion, backup: backup ? path.relative(dir.root, backup.folder) : null };
    await writeLayout(dir, atCurrentLayout([...(marker?.migrations ?? []), record]));
  } catch (err) {
    await removeQuietly(written);
    if (backup) await removeBackup(dir, backup.folder);
    throw new DocQaError('store_migration_failed', `cannot upgrade the data directory ${dir.root} from layout ${from} to ${DATA_LAYOUT_VERSION}: ${errorMessage(err)}; nothing was changed (the files of layout ${from} are as they were)`, { cause: err });
  }
  return { kind: 'migrated', from, to: DATA_LAYOUT_VERSION, backup };
}
