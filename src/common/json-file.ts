import { z } from 'zod';
import { StoreError, errorMessage } from './errors';
import { readSmallOrWhole, writeDurable } from './durable-write';

/**
 * Every persisted file is `{ formatVersion, ... }`. Writes go to a temp file, are fsynced and renamed
 * over the target, so a crash leaves either the old or the new file, never a torn one. Reads reject a
 * future version and anything that does not match its schema, naming the file; nothing is silently reset.
 */
export async function readVersioned<T extends z.ZodType>(file: string, currentVersion: number, schema: T): Promise<z.infer<T> | null> {
  let raw: string;
  try {
    const bytes = await readSmallOrWhole(file);
    raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StoreError('store_io', `cannot read ${file}: ${errorMessage(err)}`, { cause: err });
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    throw new StoreError('store_corrupt', `${file} is not valid JSON (truncated or damaged): ${errorMessage(err)}`, { cause: err });
  }
  const version = (data as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof version !== 'number') throw new StoreError('store_corrupt', `${file} has no formatVersion`);
  if (version > currentVersion) throw futureVersion(file, version, currentVersion);
  return parseOrCorrupt(file, schema, data);
}

/** The refusal of a file a newer DocQA wrote, for every reader (JSON files here, the embedding cache's meta). */
export function futureVersion(file: string, version: number, currentVersion: number): StoreError {
  return new StoreError('store_future_version', `${file} has formatVersion ${version}, newer than this DocQA understands (${currentVersion}); upgrade DocQA`);
}

/** `data` as `schema` says, or store_corrupt naming the file and the first place it does not match. */
export function parseOrCorrupt<T extends z.ZodType>(file: string, schema: T, data: unknown): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoreError('store_corrupt', `${file} does not match its schema at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Small files are indented for people; `compact` is for large data files (a snapshot's documents), read by programs. */
export async function writeVersioned<T extends { formatVersion: number }>(file: string, data: T, opts: { compact?: boolean } = {}): Promise<void> {
  try {
    await writeDurable(file, `${opts.compact ? JSON.stringify(data) : JSON.stringify(data, null, 2)}\n`);
  } catch (err) {
    throw new StoreError('store_io', `cannot write ${file}: ${errorMessage(err)}`, { cause: err });
  }
}
