import type { BuildOptions } from 'esbuild';

/** See bundle-options.mjs. */
export function nodeBundleOptions(o: { production: boolean; buildHash: string }): BuildOptions & { external: string[] };
