import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers';

export const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Set when the process was killed by a signal (code is then -1): says why in a failure message. */
  signal?: string;
}

/** Runs the built CLI (what `npx docqa` runs) with a private data dir and HOME, never the user's. */
export function makeCli(env: Record<string, string> = {}) {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const home = tempDir('docqa-home-');
  const store = path.join(home, 'store');
  const run = (args: string[], extraEnv: Record<string, string> = {}): CliResult => {
    const r = spawnSync(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      // Node's default of 1 MiB kills a child whose output is longer (SIGTERM, status null).
      maxBuffer: 256 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '', HOME: home, DOCQA_HOME: store, ...env, ...extraEnv },
    });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, ...(r.signal ? { signal: r.signal } : {}) };
  };
  /** Runs without blocking this process's event loop (needed when a fake server lives in this process). */
  const runAsync = (args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', HOME: home, DOCQA_HOME: store, ...env, ...extraEnv } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      child.on('close', (code, signal) => resolve({ code: code ?? -1, stdout, stderr, ...(signal ? { signal } : {}) }));
    });
  const json = <T = unknown>(args: string[]): T => {
    const r = run(args);
    if (r.code !== 0) throw new Error(`docqa ${args.join(' ')} exited ${r.code}${r.signal ? ` (killed by ${r.signal})` : ''}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };
  return { run, runAsync, json, home, store };
}
