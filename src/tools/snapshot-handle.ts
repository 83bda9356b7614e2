import type { DataDir } from '../common/data-dir';
import { pinSnapshot } from '../index/store/snapshot-pins';
import type { SnapshotLru } from '../index/store/snapshot-lru';
import { type LoadedSnapshot, readActiveId } from '../index/store/snapshot-store';

/** The one snapshot a request reads from start to end, pinned until released. */
export interface SnapshotHandle {
  readonly id: string;
  readonly snapshot: LoadedSnapshot;
  release(): Promise<void>;
}

/**
 * Pins the active snapshot (or `id`) for a request and loads it through the LRU. Activating another
 * snapshot meanwhile changes nothing for this request, and no retention or delete can remove it until
 * `release`. Returns null when there is no snapshot to read (the tools answer collection_unavailable).
 */
export async function openSnapshotHandle(dir: DataDir, lru: SnapshotLru, id?: string): Promise<SnapshotHandle | null> {
  const target = id ?? (await readActiveId(dir));
  if (!target) return null;
  const release = await pinSnapshot(dir, target);
  try {
    const snapshot = await lru.get(target);
    return { id: target, snapshot, release };
  } catch (err) {
    await release();
    throw err;
  }
}
