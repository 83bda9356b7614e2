import fs from 'node:fs';
import path from 'node:path';
import type { DataDir } from '../../common/data-dir';
import { FILES, type LoadedSnapshot, loadSnapshot } from './snapshot-store';

/**
 * Open snapshots kept in memory, least recently used evicted first. A snapshot is immutable once built,
 * so a loaded copy never goes stale while its folder is there; concurrent requests for one id share
 * one load.
 */
export class SnapshotLru {
  private readonly open = new Map<string, Promise<LoadedSnapshot>>();

  constructor(
    private readonly dir: DataDir,
    private readonly capacity = 2,
  ) {}

  get(id: string): Promise<LoadedSnapshot> {
    let p = this.open.get(id);
    // A loaded snapshot reads some of its files on demand (postings, float32 rows): one deleted since it
    // was loaded is loaded again, which says it is gone, instead of failing halfway through a search.
    if (p && !fs.existsSync(path.join(this.dir.snapshotDir(id), FILES.manifest))) {
      this.open.delete(id);
      p = undefined;
    }
    if (p) {
      this.open.delete(id);
      this.open.set(id, p);
      return p;
    }
    p = loadSnapshot(this.dir, id);
    this.open.set(id, p);
    // Evict only once the new one has loaded: a failed load must not push out a good snapshot.
    p.then(
      () => {
        while (this.open.size > this.capacity) this.open.delete(this.open.keys().next().value!);
      },
      () => this.open.delete(id),
    );
    return p;
  }

  /** Ids currently held, most recently used last. */
  ids(): string[] {
    return [...this.open.keys()];
  }
}
