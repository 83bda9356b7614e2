import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { type DataDir, withStoreLock } from '../../common/data-dir';
import { DocQaError } from '../../common/errors';
import { readVersioned, writeVersioned } from '../../common/json-file';
import { SUPPORTED_EXTENSIONS, parserFor } from '../parse/registry';

export const SOURCES_FORMAT_VERSION = 1;

export const Source = z.object({
  id: z.string(),
  kind: z.enum(['file', 'folder']),
  /** Absolute path as the user gave it (resolved against the working directory). */
  path: z.string(),
  /** Canonical source name shown to the model and matched by list_documents' `source`. */
  label: z.string(),
  aliases: z.array(z.string()),
  /** Globs relative to the folder; empty means every supported file. */
  include: z.array(z.string()),
  exclude: z.array(z.string()),
  /** Hidden entries (.git, .obsidian …) are skipped unless this is set. */
  include_hidden: z.boolean(),
});
export type Source = z.infer<typeof Source>;

export const SourcesFile = z.object({
  formatVersion: z.literal(SOURCES_FORMAT_VERSION),
  sources: z.array(Source),
});
export type SourcesFile = z.infer<typeof SourcesFile>;

export interface AddSourceOptions {
  include?: string[];
  exclude?: string[];
  label?: string;
  aliases?: string[];
  includeHidden?: boolean;
}

export type AddOutcome = { status: 'added'; source: Source } | { status: 'exists'; source: Source };

export async function loadSources(dir: DataDir): Promise<Source[]> {
  return (await readVersioned(dir.sourcesFile, SOURCES_FORMAT_VERSION, SourcesFile))?.sources ?? [];
}

/**
 * A source's default label: its name, made unique (labels are how the model and the person tell
 * sources apart): two folders both named `essentials` become `essentials` and `bio/essentials`, then
 * `essentials (3)`. Compared without case, as list_documents matches them.
 */
export function uniqueLabel(abs: string, taken: ReadonlySet<string>): string {
  const name = path.basename(abs) || abs;
  const candidates = [name, `${path.basename(path.dirname(abs))}/${name}`];
  for (const c of candidates) if (!taken.has(c.toLowerCase())) return c;
  for (let n = 2; ; n++) if (!taken.has(`${name} (${n})`.toLowerCase())) return `${name} (${n})`;
}

function sourceId(absPath: string): string {
  return `s${crypto.createHash('sha256').update(absPath).digest('hex').slice(0, 8)}`;
}

/**
 * Adds files or folders as sources. A path already added is reported as existing and left unchanged,
 * so adding the same folder twice changes nothing. A path that does not exist, or a file in a format no
 * parser reads, is an error naming it; nothing is added then.
 */
export async function addSources(dir: DataDir, paths: readonly string[], opts: AddSourceOptions = {}): Promise<AddOutcome[]> {
  const resolved: Array<{ abs: string; kind: Source['kind'] }> = [];
  for (const p of paths) {
    const abs = path.resolve(p);
    let st;
    try {
      st = await fs.stat(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new DocQaError('source_not_found', code === 'ENOENT' ? `no such file or folder: ${abs}` : `cannot access ${abs}: ${code}`);
    }
    if (!st.isFile() && !st.isDirectory()) throw new DocQaError('source_not_found', `not a file or folder: ${abs}`);
    // A file no parser reads would only ever be a failed document: say so now, not at the next scan.
    if (st.isFile() && !parserFor(abs)) {
      throw new DocQaError('unsupported_format', `unsupported file type: ${abs} (supported: ${SUPPORTED_EXTENSIONS.join(' ')})`);
    }
    resolved.push({ abs, kind: st.isDirectory() ? 'folder' : 'file' });
  }
  return withStoreLock(dir, async () => {
    const sources = await loadSources(dir);
    const out: AddOutcome[] = [];
    for (const { abs, kind } of resolved) {
      const existing = sources.find((s) => s.path === abs);
      if (existing) {
        out.push({ status: 'exists', source: existing });
        continue;
      }
      const taken = new Set(sources.map((s) => s.label.toLowerCase()));
      if (opts.label !== undefined && taken.has(opts.label.toLowerCase())) {
        throw new DocQaError('source_label_taken', `the label "${opts.label}" is already used by ${sources.find((s) => s.label.toLowerCase() === opts.label!.toLowerCase())!.path}; choose another with --label`);
      }
      const source: Source = {
        id: sourceId(abs),
        kind,
        path: abs,
        label: opts.label ?? uniqueLabel(abs, taken),
        aliases: [...new Set([abs, ...(opts.aliases ?? [])])],
        include: opts.include ?? [],
        exclude: opts.exclude ?? [],
        include_hidden: opts.includeHidden ?? false,
      };
      sources.push(source);
      out.push({ status: 'added', source });
    }
    await writeVersioned(dir.sourcesFile, { formatVersion: SOURCES_FORMAT_VERSION, sources });
    return out;
  });
}

/** Removes a source named by its path, id or label. Documents are untouched until the next index. */
export async function removeSource(dir: DataDir, ref: string): Promise<Source> {
  return withStoreLock(dir, async () => {
    const sources = await loadSources(dir);
    const abs = path.resolve(ref);
    const matches = sources.filter((s) => s.path === abs || s.id === ref || s.label === ref);
    if (matches.length === 0) throw new DocQaError('source_not_found', `no source matches ${ref}`);
    if (matches.length > 1) throw new DocQaError('source_ambiguous', `${ref} matches ${matches.length} sources; name it by path or id (${matches.map((m) => m.id).join(', ')})`);
    const removed = matches[0]!;
    await writeVersioned(dir.sourcesFile, { formatVersion: SOURCES_FORMAT_VERSION, sources: sources.filter((s) => s !== removed) });
    return removed;
  });
}
