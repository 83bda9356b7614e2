import fs from 'node:fs/promises';
import type { DataDir } from '../../common/data-dir';
import { isPinned } from './snapshot-pins';
import { BUILDING_SUFFIX, DELETING_SUFFIX, readActiveId, readManifest, removeSnapshotFolder } from './snapshot-store';

export interface RetentionPolicy {
  /** The newest this many finished snapshots besides the active one are always kept. */
  keep: number;
  /** Snapshots younger than this are kept too (retrieval replay, rollback); null: no age rule. */
  keepDays: number | null;
}

export const DEFAULT_RETENTION: RetentionPolicy = { keep: 5, keepDays: null };

/** `s<yyyymmdd>T<hhmmssmmm>-<hex>`, as newSnapshotId makes them: the id says when the build began. */
const ID_TIME = /^s(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})-[0-9a-f]+$/;

function timeOfId(id: string): number | null {
  const m = ID_TIME.exec(id);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!) : null;
}

/**
 * Deletes finished snapshots that are neither among the newest `keep` nor younger than `keepDays`;
 * the active snapshot and any snapshot pinned by a running request are never deleted. Ages come from
 * the ids (no manifest is read for them), so retention stays cheap however many documents the
 * snapshots hold; snapshots of an older format are aged and removed the same way.
 */
export async function applyRetention(dir: DataDir, policy: RetentionPolicy, now = new Date()): Promise<string[]> {
  const active = await readActiveId(dir);
  let names: string[];
  try {
    names = await fs.readdir(dir.snapshotsDir);
  } catch {
    return [];
  }
  const finished: Array<{ id: string; time: number }> = [];
  for (const id of names) {
    if (id === active || id.endsWith(BUILDING_SUFFIX) || id.endsWith(DELETING_SUFFIX)) continue;
    let time = timeOfId(id);
    if (time === null) {
      // Not named by a build (made by hand or by a tool): its manifest says when, or it is left alone.
      const m = await readManifest(dir, id).catch(() => null);
      if (!m) continue;
      time = Date.parse(m.created_at);
    }
    finished.push({ id, time });
  }
  finished.sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const deleted: string[] = [];
  for (const m of finished.slice(policy.keep)) {
    if (policy.keepDays !== null && now.getTime() - m.time < policy.keepDays * 86_400_000) continue;
    if (await isPinned(dir, m.id)) continue;
    try {
      await removeSnapshotFolder(dir, m.id);
      deleted.push(m.id);
    } catch {
      // Gone already (another process deleted it), or not removable now (a file held open on Windows):
      // housekeeping must not fail the build that just succeeded; the next build tries again (a
      // half-removed one is `.deleting`, which it sweeps).
    }
  }
  return deleted;
}
