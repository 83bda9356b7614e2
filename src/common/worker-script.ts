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

/** A worker on a script: a bundle as it is, a TypeScript source through tsx's CommonJS loader (Node 20 workers do not inherit it). */
export function startWorker(script: string, options: WorkerOptions = {}): Worker {
  if (!script.endsWith('.ts')) return new Worker(script, options);
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, { ...options, eval: true });
}
