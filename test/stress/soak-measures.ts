import fs from 'node:fs';
import path from 'node:path';

/**
 * What the soak measures about the test process itself: the heap after a full collection, the open
 * file descriptors, and folder sizes on disk. Linux only (`/proc/self/fd`), as CI is.
 */

/**
 * The node flags the heap measure needs: a forced GC, and no optimising or baseline compiler and no
 * bytecode flushing. With them on, compiled code kept growing through all 300 runs (build code runs
 * only at the rebuilds, so it is optimised late), 4–6 KB per run, as much as a real leak; with them off
 * the heap is the program's data. `npm run test:stress` passes them.
 */
export const MEASURE_FLAGS = ['--expose-gc', '--no-opt', '--no-sparkplug', '--no-flush-bytecode'] as const;

/** Refuses to measure without MEASURE_FLAGS (a plain run would measure the compiler). */
export function requireMeasureFlags(): void {
  const missing = MEASURE_FLAGS.filter((f) => !process.execArgv.includes(f));
  if (missing.length > 0) throw new Error(`the soak measures the heap with node ${MEASURE_FLAGS.join(' ')}; missing ${missing.join(' ')}: run npm run test:stress`);
}

/** Heap used after a full, forced collection. */
export async function heapAfterGc(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') throw new Error('no gc(): run with node --expose-gc (npm run test:stress)');
  // Let finished promises and timers drop their references first; the second pass collects what the
  // first one's finalizers released.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** How many file descriptors this process has open now. */
export function openFds(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

/** Least-squares slope of `ys` against their index (units of y per step). */
export function slope(ys: readonly number[]): number {
  const n = ys.length;
  if (n < 2) throw new Error('a slope needs at least two points');
  const meanX = (n - 1) / 2;
  const meanY = ys.reduce((s, y) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (i - meanX) * (ys[i]! - meanY);
    den += (i - meanX) ** 2;
  }
  return num / den;
}

/** Files and bytes under a folder (0 and 0 when it does not exist). */
export function folderSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return { files, bytes };
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      const sub = folderSize(p);
      files += sub.files;
      bytes += sub.bytes;
    } else {
      files += 1;
      bytes += fs.statSync(p).size;
    }
  }
  return { files, bytes };
}

/** The subfolders of a folder, sorted (none when it does not exist). */
export function subfolders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
