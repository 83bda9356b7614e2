import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import picomatch from 'picomatch';
import { PARSERS, SUPPORTED_EXTENSIONS, parserFor } from '../../src/index/parse/registry';
import { formatExtensions, sourceWatchGlob } from '../../src/vscode/format-patterns';

const ROOT = path.join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { menus: { 'explorer/context': Array<{ command: string; when: string }> } } };
const explorer = pkg.contributes.menus['explorer/context'];

/** What VS Code does with `resourceExtname =~ /…/flags` for a file: its extension (with the dot) against the regex. */
function offered(command: string, fileName: string): boolean {
  const when = explorer.find((e) => e.command === command)!.when;
  const m = /resourceExtname =~ \/(.+)\/([a-z]*)$/.exec(when);
  assert.ok(m, `${command}'s when-clause tests resourceExtname: ${when}`);
  return new RegExp(m[1]!, m[2]).test(path.extname(fileName));
}

/** Every registered extension in lower and upper case, some that are not (yet) a format, and look-alikes. */
const NAMES = [...SUPPORTED_EXTENSIONS.flatMap((e) => [`notes${e}`, `NOTES${e.toUpperCase()}`]), 'b.mdown', 'Page.MDX', 'Paper.PDF', 'data.json', 'slides.pptx', 'notes.md.bak', 'mdx', 'report.docx', 'archive.tar.gz', 'README'];

describe('formats are named once, in the parser registry', () => {
  it('the Explorer offers Inspect and Add to Sources for exactly the files a parser reads (Inspect once missed .mdown .mkd .mdx)', () => {
    for (const name of NAMES) {
      const readable = parserFor(name) !== null;
      assert.equal(offered('docqa.inspectDocument', name), readable, `Inspect on ${name}`);
      assert.equal(offered('docqa.addToSources', name), readable, `Add to Sources on ${name}`);
    }
  });

  it('a source folder is watched for exactly the files a parser reads, in any case, and its .gitignore files', () => {
    const watched = picomatch(sourceWatchGlob(), { dot: true });
    for (const name of NAMES) assert.equal(watched(`week1/${name}`), parserFor(name) !== null, `watcher on ${name}`);
    assert.ok(watched('.gitignore') && watched('deep/er/.gitignore'));
  });

  it('lists every registered extension, and nothing else', () => {
    assert.deepEqual([...formatExtensions()].map((e) => `.${e}`).sort(), [...SUPPORTED_EXTENSIONS]);
    assert.deepEqual(formatExtensions().length, PARSERS.reduce((n, p) => n + p.extensions.length, 0), 'no extension is claimed by two parsers');
  });
});
