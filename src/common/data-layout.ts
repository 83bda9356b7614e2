import path from 'node:path';
import { z } from 'zod';
import type { DataDir } from './data-dir';
import { StoreError } from './errors';
import { parseOrCorrupt, readVersioned, writeVersioned } from './json-file';

/**
 * The data directory's layout version, in `layout.json`: which files make up the directory, beyond
 * each file's own formatVersion. A file's version says how to read that file; the layout says which
 * files are the current ones (a migration writes new files beside the old and then switches, so both
 * exist) and lets a DocQA refuse a directory a newer one has rearranged. Layout 1 has no marker: every
 * data directory written before the marker existed (DocQA 0.1.0). See docs/data-directory.md.
 */
export const DATA_LAYOUT_VERSION = 2;
export const LAYOUT_FORMAT_VERSION = 1;

export const LayoutMigration = z.object({
  from: z.number().int(),
  to: z.number().int(),
  at: z.string(),
  app_version: z.string(),
  /** The backup made before it (relative to the data directory), or null when nothing needed one. */
  backup: z.string().nullable(),
});
export type LayoutMigration = z.infer<typeof LayoutMigration>;

export const LayoutMarker = z.object({
  formatVersion: z.literal(LAYOUT_FORMAT_VERSION),
  layout: z.number().int().min(2),
  /** How the directory got here, oldest first (empty for a directory created at this layout). */
  migrations: z.array(LayoutMigration),
});
export type LayoutMarker = z.infer<typeof LayoutMarker>;

export const layoutFile = (dir: DataDir) => path.join(dir.root, 'layout.json');

/** The directory's layout (1 when it has no marker), refusing one a newer DocQA wrote. */
export async function readLayout(dir: DataDir): Promise<{ layout: number; marker: LayoutMarker | null }> {
  const file = layoutFile(dir);
  const marker = await readVersioned(file, LAYOUT_FORMAT_VERSION, z.looseObject({ formatVersion: z.number(), layout: z.unknown() }));
  if (!marker) return { layout: 1, marker: null };
  if (typeof marker.layout === 'number' && marker.layout > DATA_LAYOUT_VERSION) {
    throw new StoreError('store_future_version', `${file} says the data directory has layout ${marker.layout}, newer than this DocQA understands (${DATA_LAYOUT_VERSION}); upgrade DocQA (nothing in it was changed)`);
  }
  const parsed = parseOrCorrupt(file, LayoutMarker, marker);
  return { layout: parsed.layout, marker: parsed };
}

/** The switch of a migration (and the birth certificate of a new directory): one atomic replace. */
export async function writeLayout(dir: DataDir, marker: LayoutMarker): Promise<void> {
  await writeVersioned(layoutFile(dir), marker);
}
