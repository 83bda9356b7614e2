import fs from 'node:fs';
import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker's script: the bundled one in `dir` (dist/<name>.js) or — run from the TypeScript sources
 * (tests, tsx) — <name>.ts beside the caller. null when neither exists.
 */
export function workerScript(dir: string, name: string): string | null {
  for (const file of [`${name}.js`, `${name}.ts`]) if (fs.existsSync(path.join(dir, file))) return path.join(dir, file);
  return null;
}

/**
 * A worker on a script: a bundle as it is, a TypeScript source through tsx's CommonJS loader (Node 20
 * workers do not inherit it). A bundle needs none of the host's Node options, so it gets none: a worker
 * inherits them by default, and a host started with `--import tsx` (the tests, a tool run from source)
 * had every worker load tsx's hooks, lex the 4 MB pdf.js bundle for its exports and parse its source
 * map: 1.6–4 s before a worker's first PDF instead of about 0.8 s.
 */
export function startWorker(script: string, options: WorkerOptions = {}): Worker {
  if (!script.endsWith('.ts')) return new Worker(script, { execArgv: [], ...options });
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, { ...options, eval: true });
}
