import fs from 'node:fs/promises';
import path from 'node:path';
import type { DataDir } from '../../common/data-dir';
import { layoutFile, readLayout, writeLayout } from '../../common/data-layout';
import { DocQaError } from '../../common/errors';
import { writeDurable } from '../../common/durable-write';
import { ActivePointer } from '../../index/store/snapshot-manifest';
import { readManifest } from '../../index/store/snapshot-store';
import { type BackupRecord, backupContents, readBackup, readBytes } from './data-backup';
import { LAYOUT_MIGRATIONS } from './layout-migrations';
import { underAllLocks } from './open-data-dir';

export interface RestoreOutcome {
  backup: BackupRecord;
  /** Files put back (relative), files removed (the migration's, and state files that did not exist then). */
  restored: string[];
  removed: string[];
  layout: number;
}

/**
 * Data rollback to the moment before a migration: the backed-up files are put back (atomically, each
 * checked against its recorded hash first), the files the migration wrote are removed and the layout
 * goes back to the backup's `from`, so the DocQA of that layout finds its directory as it left it (plus
 * the snapshots, traces, conversations and evaluations made since, which it reads as they are). The
 * backup is kept. Refused, with nothing changed, when the directory is not at the layout the backup
 * migrated to or the snapshot the backup's active.json names is gone.
 */
export async function restoreBackup(dir: DataDir, id: string): Promise<RestoreOutcome> {
  return underAllLocks(dir, async () => {
    const record = await readBackup(dir, id);
    const { layout, marker } = await readLayout(dir);
    if (layout !== record.to) throw new DocQaError('backup_not_applicable', `backup ${id} was made by the migration from layout ${record.from} to ${record.to}, but the data directory is at layout ${layout}; nothing was restored`);
    const contents = await backupContents(dir, record);
    const active = contents.get('active.json');
    if (active) {
      const pointer = ActivePointer.safeParse(JSON.parse(Buffer.from(active).toString('utf8')));
      const snapshot = pointer.success ? pointer.data.snapshot_id : null;
      if (snapshot && !(await readManifest(dir, snapshot).catch(() => null))) {
        throw new DocQaError('backup_not_applicable', `backup ${id} makes snapshot ${snapshot} active, but that snapshot was deleted since; activate another one with \`docqa snapshots activate\`; nothing was restored`);
      }
    }
    const restored: string[] = [];
    const removed: string[] = [];
    for (const [rel, bytes] of contents) {
      const file = path.join(dir.root, rel);
      const now = await readBytes(file);
      if (now && Buffer.compare(Buffer.from(now), Buffer.from(bytes)) === 0) continue;
      await fs.mkdir(path.dirname(file), { recursive: true });
      await writeDurable(file, bytes);
      restored.push(rel);
    }
    for (const rel of record.absent) {
      if (!(await readBytes(path.join(dir.root, rel)))) continue;
      await fs.rm(path.join(dir.root, rel), { force: true });
      removed.push(rel);
    }
    // The switch back: from here on the directory is at layout `from`; what the migration wrote is then nobody's.
    const earlier = (marker?.migrations ?? []).filter((m) => m.to <= record.from);
    if (record.from === 1) await fs.rm(layoutFile(dir), { force: true });
    else await writeLayout(dir, { formatVersion: 1, layout: record.from, migrations: earlier });
    for (const step of LAYOUT_MIGRATIONS.filter((m) => m.from >= record.from && m.to <= record.to)) {
      for (const w of step.writes) {
        if (!(await readBytes(path.join(dir.root, w)))) continue;
        await fs.rm(path.join(dir.root, w), { force: true });
        removed.push(w);
      }
    }
    return { backup: record, restored: restored.sort(), removed: removed.sort(), layout: record.from };
  });
}
