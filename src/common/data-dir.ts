import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { StoreError, diskRefusal, errorMessage } from './errors';
import { processAlive } from './process-alive';

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
  get snapshotsDir(): string {
    return path.join(this.root, 'snapshots');
  }
  get activeFile(): string {
    return path.join(this.root, 'active.json');
  }
  get embeddingsDir(): string {
    return path.join(this.root, 'embeddings');
  }
  get tracesDir(): string {
    return path.join(this.root, 'traces');
  }
  traceDir(runId: string): string {
    return path.join(this.tracesDir, runId);
  }
  /** Experimental prompt bundles and which one is active (the release baselines live beside the code). */
  get promptsDir(): string {
    return path.join(this.root, 'prompts');
  }
  get evalsDir(): string {
    return path.join(this.root, 'evals');
  }
  /** Chat history: `conversations/<workspace-key>/<conversation-id>.json`. */
  get conversationsDir(): string {
    return path.join(this.root, 'conversations');
  }
  snapshotDir(id: string): string {
    return path.join(this.snapshotsDir, id);
  }
  async ensure(): Promise<void> {
    try {
      // One system call, usually a no-op: cheaper blocking than as a thread-pool trip.
      fsSync.mkdirSync(this.root, { recursive: true });
    } catch (err) {
      throw new StoreError('store_io', `cannot create data directory ${this.root}: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/**
 * A lock whose owner (same host) is no longer running is removed at once instead of waiting for it to go
 * stale. Two processes starting in the same instant after a crash could both see the dead owner; the
 * window is a few microseconds and the cost is one interleaved write, as with any stale-lock takeover.
 */
async function clearDeadOwner(lockDir: string, ownerFile: string): Promise<void> {
  try {
    const owner = JSON.parse(fsSync.readFileSync(ownerFile, 'utf8')) as { pid?: unknown; host?: unknown };
    if (typeof owner.pid === 'number' && owner.host === os.hostname() && !processAlive(owner.pid)) {
      await fs.rm(lockDir, { recursive: true, force: true });
      await fs.rm(ownerFile, { force: true });
    }
  } catch {
    // No owner file (yet): leave the lock to proper-lockfile's staleness rule.
  }
}

/**
 * Runs `fn` holding one of the data directory's locks (`store` for sources rewrites, `build` for
 * snapshot builds and anything else that rewrites the doc_id registry), so several windows or CLI runs
 * sharing one data directory do not interleave.
 * The lock is a directory whose mtime is refreshed while held; one left by a crashed process is taken
 * over at once when its owner's pid is gone, else after 10 s without refresh.
 */
/** What a lock holder can ask: whether the lock is still its own (see withStoreLock). */
export interface HeldLock {
  /** Throws `store_locked` when the lock was lost while held (its folder removed or taken over). */
  assertHeld(): void;
}

export async function withStoreLock<T>(dir: DataDir, fn: (held: HeldLock) => Promise<T>, name = 'store'): Promise<T> {
  await dir.ensure();
  const lockDir = path.join(dir.root, `${name}.lock`);
  // Beside the lock directory, not in it: proper-lockfile removes the directory with rmdir.
  const ownerFile = path.join(dir.root, `${name}.lock.owner`);
  await clearDeadOwner(lockDir, ownerFile);
  let release: () => Promise<void> | void;
  // Each named lock has its own target: proper-lockfile keys held locks by target path in-process.
  const target = path.join(dir.root, name);
  // proper-lockfile's default reaction to a lock lost while held (its folder removed, or taken over as
  // stale) is to throw from a timer, which would take the whole extension host down: the holder is
  // told instead and refuses to commit (assertHeld).
  let lost: Error | null = null;
  const options = {
    lockfilePath: lockDir,
    stale: 10_000,
    update: 2_000,
    realpath: false,
    onCompromised: (err: Error) => {
      lost = err;
    },
  };
  const held: HeldLock = {
    assertHeld() {
      if (lost) throw new StoreError('store_locked', `the ${name} lock of ${dir.root} was lost while held (${errorMessage(lost)}); nothing was committed`, { cause: lost });
    },
  };
  try {
    try {
      // Free (the usual case): taken with blocking calls, a few system calls; the retrying asynchronous
      // path costs a thread-pool trip per step, several milliseconds per build on the machines measured.
      release = lockfile.lockSync(target, options);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      release = await lockfile.lock(target, { ...options, retries: { retries: 50, minTimeout: 50, maxTimeout: 500 } });
    }
  } catch (err) {
    // A disk that refuses the lock folder is not "another process": say what it is.
    const refused = diskRefusal(err);
    if (refused) throw new StoreError('store_io', `cannot write to data directory ${dir.root} (${name}.lock): ${refused} (${errorMessage(err)})`, { cause: err });
    throw new StoreError('store_locked', `data directory ${dir.root} is locked by another DocQA process (${name}.lock): ${errorMessage(err)}`, { cause: err });
  }
  // The owner file is a few bytes: written and removed with blocking calls (cheaper than a thread-pool trip).
  try {
    fsSync.writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, host: os.hostname() }));
  } catch {
    // Without it a crashed owner's lock goes stale after 10 s instead of at once.
  }
  try {
    return await fn(held);
  } finally {
    try {
      fsSync.rmSync(ownerFile, { force: true });
    } catch {
      // Left behind, it names a process that will be gone: the next locker clears it.
    }
    try {
      await release();
    } catch {
      // Already released (compromised) or gone: nothing left to undo.
    }
  }
}
