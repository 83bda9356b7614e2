import fs from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { StoreError, errorMessage } from './errors';

/**
 * The data directory layout (documented in README "Data directory"). Only paths are decided here; each
 * file's format lives with the module that owns it.
 */
export class DataDir {
  constructor(readonly root: string) {}
  get sourcesFile(): string {
    return path.join(this.root, 'sources.json');
  }
  get documentsFile(): string {
    return path.join(this.root, 'documents.json');
  }
  get lockTarget(): string {
    return this.root;
  }
  async ensure(): Promise<void> {
    try {
      await fs.mkdir(this.root, { recursive: true });
    } catch (err) {
      throw new StoreError('store_io', `cannot create data directory ${this.root}: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/**
 * Runs `fn` holding the data directory's write lock, so several windows or CLI runs sharing one data
 * directory do not interleave read-modify-write cycles. The lock is a directory whose mtime is refreshed
 * while held; one left by a crashed process goes stale after 10 s and is taken over.
 */
export async function withStoreLock<T>(dir: DataDir, fn: () => Promise<T>): Promise<T> {
  await dir.ensure();
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir.lockTarget, {
      lockfilePath: path.join(dir.root, 'store.lock'),
      stale: 10_000,
      update: 2_000,
      retries: { retries: 50, minTimeout: 50, maxTimeout: 500 },
      realpath: false,
    });
  } catch (err) {
    throw new StoreError('store_locked', `data directory ${dir.root} is locked by another DocQA process: ${errorMessage(err)}`, { cause: err });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
