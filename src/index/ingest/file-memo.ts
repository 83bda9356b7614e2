import fs from 'node:fs';

interface Entry<T> {
  ino: number;
  size: number;
  mtimeMs: number;
  value: T;
}

/**
 * Values read from or written to files, kept while each file is provably the same: same inode, size and
 * modification time. Every rewrite of our files replaces them with a new inode (temp + rename), so a
 * change by another process is always noticed. A build re-read and re-validated the manifest and registry
 * it had itself written moments before (1,000 documents: ~6 ms, ~30 ms the first time), and the
 * embedding cache's key blocks. Values are shared, never copied, so they are frozen (deeply, typed
 * arrays aside) when remembered. At most `capacity` files are kept, the oldest dropped first.
 */
export class FileMemo<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly capacity = 1) {}

  get(file: string): T | undefined {
    const e = this.entries.get(file);
    if (!e) return undefined;
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && st.ino === e.ino && st.size === e.size && st.mtimeMs === e.mtimeMs) return e.value;
    this.entries.delete(file);
    return undefined;
  }

  /** Remembers `value` (freezing it) as the content of `file` as it is now on disk (or as `stat` says). */
  remember(file: string, value: T, stat?: fs.Stats): void {
    const st = stat ?? fs.statSync(file, { throwIfNoEntry: false });
    this.entries.delete(file);
    if (!st) return;
    this.entries.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, value: deepFreeze(value) });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(file: string): void {
    this.entries.delete(file);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
