import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DataDir } from '../../common/data-dir';
import { diskRefusal } from '../../common/errors';
import { processAlive } from '../../common/process-alive';

/**
 * A running request pins the snapshot it reads, so that retention and `snapshots delete` in any process
 * sharing the data directory leave it alone. A pin is a small file `pins/<snapshot>/<pid>-<random>`
 * naming its owner; a pin whose owner process is gone no longer counts (a crash cannot keep a snapshot
 * forever).
 */
function pinDir(dir: DataDir, id: string): string {
  return path.join(dir.root, 'pins', id);
}

/**
 * Pins a snapshot until the returned release runs. On a disk that refuses writes (read-only, full,
 * failing) the request goes on unpinned: reading still works, and such a disk lets no build or
 * retention delete the snapshot either (a question must not fail because a few bytes cannot be written).
 */
export async function pinSnapshot(dir: DataDir, id: string): Promise<() => Promise<void>> {
  const folder = pinDir(dir, id);
  const file = path.join(folder, `${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  try {
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(file, JSON.stringify({ pid: process.pid, host: os.hostname() }));
  } catch (err) {
    if (!diskRefusal(err)) throw err;
    await fs.rm(file, { force: true }).catch(() => undefined);
    return async () => undefined;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await fs.rm(file, { force: true });
  };
}

/** Whether any live process holds a pin on the snapshot; stale pins are removed on the way. */
export async function isPinned(dir: DataDir, id: string): Promise<boolean> {
  const folder = pinDir(dir, id);
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch {
    return false;
  }
  let pinned = false;
  for (const n of names) {
    const file = path.join(folder, n);
    try {
      const owner = JSON.parse(await fs.readFile(file, 'utf8')) as { pid?: unknown; host?: unknown };
      if (typeof owner.pid === 'number' && (owner.host !== os.hostname() || processAlive(owner.pid))) pinned = true;
      else await fs.rm(file, { force: true });
    } catch {
      // A pin being written right now: count it.
      pinned = true;
    }
  }
  return pinned;
}
