import type { BuildOptions } from 'esbuild';

/** See bundle-options.mjs. */
export const LAZY_PACKAGES: readonly string[];

/** See bundle-options.mjs. */
export function nodeBundleOptions(o: { production: boolean; buildHash: string }): BuildOptions & { external: string[] };

/** See bundle-options.mjs. */
export function escapeNonAscii(src: string, name: string): string;
