import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { errorMessage } from '../../common/errors';
import type { FailedDocument } from '../../shared/failed-document';
import { SUPPORTED_EXTENSIONS } from '../parse/registry';
import { isWithin } from '../../common/path-within';
import { type SkippedEntry, isSecretLookingName } from './secret-files';
import { strictDecode } from './text-decode';
import type { Source } from './sources';

export interface SourceFile {
  /** Absolute path (through symlinks as the user sees it). */
  path: string;
  /** Path relative to the source root, '/'-separated. */
  relPath: string;
  /** The file itself, every symlink on the way resolved: one file reached by two paths is one document. */
  realPath: string;
  source: Source;
}

/** An entry that could not be walked, with its location once symlinks are resolved (reached twice, said once). */
export interface WalkProblem {
  failure: FailedDocument;
  real: string;
}

export interface WalkResult {
  files: SourceFile[];
  /** Entries that could not be walked (unreadable folders, symlink loops): reported, never fatal. */
  problems: WalkProblem[];
  /** Entries left out on purpose that a person may want to know of: secret-looking, outside the source, .gitignored. */
  skipped: SkippedEntry[];
}



/** Folders skipped even when hidden entries are included: dependency trees are never notes. */
const ALWAYS_SKIPPED = new Set(['node_modules']);

/**
 * Names in `dir` that are not valid UTF-8 (a zip of Chinese notes unpacked on Linux keeps its GBK names),
 * as Node shows them (undecodable bytes as U+FFFD, so the name opens nothing) → the name read as GB18030,
 * when that reads.
 */
async function undecodableNames(dir: string): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const raw of await fs.readdir(dir, { encoding: 'buffer' }).catch(() => [] as Buffer[])) {
    if (strictDecode('utf-8', raw) === null) out.set(raw.toString('utf8'), strictDecode('gb18030', raw));
  }
  return out;
}

/** Why a folder could not be opened, in words. */
function folderError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'it disappeared during the scan';
  if (code === 'ENOTDIR') return 'it is not a folder';
  return code ?? errorMessage(err);
}

interface IgnoreLayer {
  /** The folder holding the .gitignore, relative to the source root ('' for the root). */
  baseRel: string;
  rules: Ignore;
}

async function loadGitignore(dir: string): Promise<Ignore | null> {
  try {
    const text = await fs.readFile(path.join(dir, '.gitignore'), 'utf8');
    return ignore().add(text);
  } catch {
    return null;
  }
}

/** `rel` is the entry's '/'-separated path below the source root; each layer's base is a folder on it. */
function ignoredBy(layers: readonly IgnoreLayer[], rel: string, isDir: boolean): boolean {
  for (const l of layers) {
    const below = l.baseRel === '' ? rel : rel.slice(l.baseRel.length + 1);
    if (below && l.rules.ignores(isDir ? `${below}/` : below)) return true;
  }
  return false;
}

/**
 * Lists a source's files: recursive for folders, in a stable (sorted) order, honouring .gitignore files
 * at every level, skipping hidden entries and node_modules by default, applying the source's include and
 * exclude globs, and following symlinks that stay inside the source while refusing to walk a folder twice
 * (loops). Secret-looking files are never read; a symlink out of the source is not followed (what a
 * person adds is what may be sent to the embedding service); both are listed as skipped, as are
 * .gitignored entries.
 */
export async function walkSource(source: Source, signal?: AbortSignal, globs: { include: readonly string[]; exclude: readonly string[] } = { include: [], exclude: [] }): Promise<WalkResult> {
  if (source.kind === 'file') {
    const realPath = await fs.realpath(source.path).catch(() => source.path);
    if (isSecretLookingName(path.basename(source.path))) return { files: [], problems: [], skipped: [{ path: source.path, kind: 'file', reason: 'secret_looking' }] };
    return { files: [{ path: source.path, relPath: path.basename(source.path), realPath, source }], problems: [], skipped: [] };
  }
  const files: SourceFile[] = [];
  const problems: WalkProblem[] = [];
  const skipped: SkippedEntry[] = [];
  const problem = (real: string, failure: FailedDocument) => problems.push({ failure, real });
  const rootReal = await fs.realpath(source.path).catch(() => source.path);
  const defaultInclude = `**/*{${SUPPORTED_EXTENSIONS.join(',')}}`;
  const includes = source.include.length ? source.include : globs.include.length ? globs.include : [defaultInclude];
  const include = picomatch([...includes], { dot: true, nocase: true });
  const excludes = [...source.exclude, ...globs.exclude];
  const exclude = excludes.length ? picomatch(excludes, { dot: true }) : () => false;
  const visited = new Set<string>();

  // Paths below the root are built as strings as the walk descends (path.relative per entry cost more
  // than the rest of the walk on large folders).
  async function walk(dir: string, relDir: string, layers: IgnoreLayer[]): Promise<void> {
    signal?.throwIfAborted();
    let real: string;
    try {
      real = await fs.realpath(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && relDir === '') {
        problem(dir, { path: dir, stage: 'read', code: 'not_found', message: 'the source folder no longer exists (restore it, or `docqa sources remove` it)' });
      } else problem(dir, { path: dir, stage: 'read', code: 'unreadable', message: `cannot open folder: ${folderError(err)}` });
      return;
    }
    if (visited.has(real)) {
      problem(real, { path: dir, stage: 'read', code: 'symlink_loop', message: `folder is reached again through a symlink (${real}); skipped` });
      return;
    }
    visited.add(real);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      problem(real, { path: dir, stage: 'read', code: 'unreadable', message: `cannot list folder: ${folderError(err)}` });
      return;
    }
    const gi = await loadGitignore(dir);
    const here = gi ? [...layers, { baseRel: relDir, rules: gi }] : layers;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const undecodable = entries.some((e) => e.name.includes('\uFFFD')) ? await undecodableNames(dir) : null;
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (!e.isDirectory() && isSecretLookingName(e.name)) {
        skipped.push({ path: abs, kind: 'file', reason: 'secret_looking' });
        continue;
      }
      if (!source.include_hidden && e.name.startsWith('.')) continue;
      if (ALWAYS_SKIPPED.has(e.name)) continue;
      let realPath = path.join(real, e.name);
      if (undecodable?.has(e.name)) {
        // Opening the name as Node shows it would report a file that exists as missing.
        const rel = relDir === '' ? e.name : `${relDir}/${e.name}`;
        if (e.isFile() && !include(rel)) continue;
        const asGbk = undecodable.get(e.name);
        problem(realPath, {
          path: abs,
          stage: 'read',
          code: 'unreadable',
          message: `the ${e.isDirectory() ? 'folder' : 'file'} name is not valid UTF-8${asGbk ? ` (read as GBK it is “${asGbk}”)` : ''}; rename it to read it`,
        });
        continue;
      }
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          const st = await fs.stat(abs);
          isDir = st.isDirectory();
          isFile = st.isFile();
          realPath = await fs.realpath(abs);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          problem(realPath, {
            path: abs,
            stage: 'read',
            code: code === 'ELOOP' ? 'symlink_loop' : 'unreadable',
            message: code === 'ELOOP' ? 'symlink points back into itself' : `broken symlink: ${code ?? errorMessage(err)}`,
          });
          continue;
        }
      }
      if (e.isSymbolicLink() && !isWithin(rootReal, realPath)) {
        skipped.push({ path: abs, kind: isDir ? 'folder' : 'file', reason: 'outside_source' });
        continue;
      }
      const rel = relDir === '' ? e.name : `${relDir}/${e.name}`;
      if (ignoredBy(here, rel, isDir)) {
        if (isDir || include(rel)) skipped.push({ path: abs, kind: isDir ? 'folder' : 'file', reason: 'gitignored' });
        continue;
      }
      if (isDir) {
        if (exclude(rel) || exclude(`${rel}/`)) continue;
        await walk(abs, rel, here);
      } else if (isFile && include(rel) && !exclude(rel)) {
        files.push({ path: abs, relPath: rel, realPath, source });
      }
    }
  }

  await walk(source.path, '', []);
  return { files, problems, skipped };
}
