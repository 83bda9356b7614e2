import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * A module built as a bundle of its own next to the built bundles (`dist/<file>`, see esbuild.mjs),
 * loaded on first use so that the CLI, the extension host and each worker start without reading and
 * compiling it. Run from source there is none: undefined, and the caller loads the package itself.
 */
export function ownBundle<T>(file: string): T | undefined {
  const bundle = path.join(__dirname, file);
  return fs.existsSync(bundle) ? (createRequire(__filename)(bundle) as T) : undefined;
}

/** A data file the build wrote next to the bundles (`dist/<file>`, see esbuild.mjs); undefined from source. */
export function ownFile(file: string): Uint8Array | undefined {
  const data = path.join(__dirname, file);
  return fs.existsSync(data) ? fs.readFileSync(data) : undefined;
}
