import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { readFullySync } from './read-file';

/**
 * A module built as a bundle of its own next to the built bundles (`dist/<file>`, see esbuild.mjs),
 * loaded on first use so that the CLI, the extension host and each worker start without reading and
 * compiling it. Run from source there is none: undefined, and the caller loads the package itself.
 */
export function ownBundle<T>(file: string): T | undefined {
  const bundle = path.join(__dirname, file);
  return fs.existsSync(bundle) ? (createRequire(__filename)(bundle) as T) : undefined;
}

/**
 * A data file the build wrote next to the bundles (`dist/<file>`, see esbuild.mjs), read straight into
 * memory every thread can share (no copy on the way: a Buffer read first and copied stayed until a
 * collection); undefined from source.
 */
export function ownSharedFile(file: string): SharedArrayBuffer | undefined {
  const data = path.join(__dirname, file);
  if (!fs.existsSync(data)) return undefined;
  const fd = fs.openSync(data, 'r');
  try {
    const shared = new SharedArrayBuffer(fs.fstatSync(fd).size);
    if (!readFullySync(fd, new Uint8Array(shared), 0)) throw new Error(`${data} ended early`);
    return shared;
  } finally {
    fs.closeSync(fd);
  }
}
