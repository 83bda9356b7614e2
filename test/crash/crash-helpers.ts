import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataDir } from '../../src/common/data-dir';
import { hybridSearch } from '../../src/index/search/hybrid-search';
import { loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { CLI } from '../integration/cli';

export const FS_FAULTS = path.join(__dirname, 'fs-faults.mjs');

/** Small deterministic PRNG so a failing round can be replayed. */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The built CLI in a child process; SIGKILL after `killAfterMs` when given; `preload` for the file-fault shim. */
export function runCli(env: Record<string, string>, args: string[], opts: { killAfterMs?: number; preload?: boolean; extraEnv?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...(opts.preload ? ['--import', pathToFileURL(FS_FAULTS).href] : []), CLI, ...args], { env: { ...env, ...opts.extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = opts.killAfterMs === undefined ? null : setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - t0 });
    });
  });
}

/** Every file under a folder, relative, skipping the folders a build or deletion works in (swept on the next build). */
function filesUnder(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => !/\.(building|deleting)(\/|$)/.test(f) && fs.statSync(path.join(root, f)).isFile());
}

/**
 * What must hold after any crash or refused write: every JSON file parses; every append-only record
 * file parses line by line (only its last line may be torn, and the trace store skips it); the
 * active snapshot loads and answers a keyword search for `probe`.
 */
export async function assertStoreSound(store: string, probe: string, where: string): Promise<void> {
  for (const f of filesUnder(store)) {
    const file = path.join(store, f);
    if (f.endsWith('.json')) {
      const text = fs.readFileSync(file, 'utf8');
      assert.doesNotThrow(() => JSON.parse(text), `${where}: ${f} is not parsable: ${JSON.stringify(text.slice(0, 80))}`);
    } else if (f.endsWith('.jsonl')) {
      // Only whole lines count: a line without its newline is a torn append, which readers skip.
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines.pop();
      for (const l of lines) assert.doesNotThrow(() => JSON.parse(l), `${where}: a whole line of ${f} is not parsable`);
    }
  }
  const active = await loadActiveSnapshot(new DataDir(store));
  assert.ok(active, `${where}: an active snapshot loads`);
  assert.ok(hybridSearch(active.bm25, active.vectors, probe, null, 5).length > 0, `${where}: the active snapshot answers`);
}

/** Temporary files a killed atomic write leaves beside its target (`name.json.<digits>`, a cache segment's `.dqe.<digits>`). */
export function strayTempFiles(store: string): string[] {
  return filesUnder(store).filter((f) => /\.(json|dqe|bin)\.\d+$/.test(f));
}
