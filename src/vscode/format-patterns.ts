// The file formats as the extension's manifest and watchers name them, all from the parser registry:
// a format added there is offered in the Explorer's menus and watched in the sources without another
// edit. Pure (no `vscode` import): scripts/gen-manifest.ts writes the menu clauses into package.json.
import { PARSERS } from '../index/parse/registry';

/** Every extension the parsers read (`md`, `markdown`, …, `pdf`), in the registry's order, without the dot. */
export function formatExtensions(): string[] {
  return PARSERS.flatMap((p) => p.extensions.map((e) => e.slice(1)));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A when-clause true for a file of a supported format. Case-insensitive, as the walker's include glob
 * and `parserFor` are: `NOTES.MD` is indexed, so it is offered too.
 */
export function formatWhenClause(): string {
  return `resourceExtname =~ /\\.(${formatExtensions().map(escapeRegExp).join('|')})$/i`;
}

/** `md` → `[mM][dD]`: a glob part matching the extension in any case (VS Code's file watcher matches case-sensitively on Linux). */
const anyCase = (ext: string) => [...ext].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');

/** What a source folder's watcher listens to: every supported file, and the .gitignore files that decide what is skipped. */
export function sourceWatchGlob(): string {
  return `**/{${[...formatExtensions().map((e) => `*.${anyCase(e)}`), '.gitignore'].join(',')}}`;
}

/** The Explorer context-menu entries that act on a document, by command, with their when-clause (generated into package.json). */
export function formatMenuClauses(): Record<string, string> {
  const file = formatWhenClause();
  return {
    'docqa.inspectDocument': file,
    'docqa.addToSources': `explorerResourceIsFolder || ${file}`,
  };
}
