import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { walkSource } from '../../src/index/sources/source-walker';
import type { Source } from '../../src/index/sources/sources';
import { tempDir } from '../helpers';

function tree(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
}

function folder(root: string, extra: Partial<Source> = {}): Source {
  return { id: 's1', kind: 'folder', path: root, label: 'notes', aliases: [], include: [], exclude: [], include_hidden: false, ...extra };
}

describe('walkSource', () => {
  it('walks recursively in sorted order, keeps supported formats, honours nested .gitignore files, skips hidden folders and node_modules', async () => {
    const root = tempDir();
    tree(root, {
      'b.md': '# b',
      'a.txt': 'a',
      'paper.PDF': '%PDF',
      'image.png': 'x',
      '.gitignore': 'drafts/\n*.tmp.md\n',
      'drafts/d.md': '# d',
      'x.tmp.md': '# x',
      'sub/c.md': '# c',
      'sub/.gitignore': 'private.md\n',
      'sub/private.md': '# p',
      '.obsidian/config.md': '# hidden',
      'node_modules/pkg/README.md': '# dep',
    });
    const { files, problems, skipped } = await walkSource(folder(root));
    assert.deepEqual(
      files.map((f) => f.relPath),
      ['a.txt', 'b.md', 'paper.PDF', 'sub/c.md'],
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      skipped.map((k) => [path.relative(root, k.path), k.kind, k.reason]),
      [
        ['drafts', 'folder', 'gitignored'],
        ['sub/private.md', 'file', 'gitignored'],
        ['x.tmp.md', 'file', 'gitignored'],
      ],
      'what .gitignore left out is listed (folders as folders), not the files no parser reads',
    );
    const hidden = await walkSource(folder(root, { include_hidden: true }));
    assert.ok(hidden.files.some((f) => f.relPath === '.obsidian/config.md'));
    assert.ok(!hidden.files.some((f) => f.relPath.startsWith('node_modules/')));
  });

  it('applies include and exclude globs relative to the folder', async () => {
    const root = tempDir();
    tree(root, { 'week1/a.md': 'a', 'week1/b.txt': 'b', 'week2/c.md': 'c', 'archive/old.md': 'o' });
    const only = await walkSource(folder(root, { include: ['**/*.md'], exclude: ['archive/**'] }));
    assert.deepEqual(only.files.map((f) => f.relPath), ['week1/a.md', 'week2/c.md']);
    // The host's globs (the docqa.sources.* settings): include where the source has none, exclude on top.
    const host = { include: ['**/*.txt', '**/*.md'], exclude: ['week2/**'] };
    assert.deepEqual((await walkSource(folder(root), undefined, host)).files.map((f) => f.relPath), ['archive/old.md', 'week1/a.md', 'week1/b.txt']);
    assert.deepEqual((await walkSource(folder(root, { include: ['**/*.md'], exclude: ['archive/**'] }), undefined, host)).files.map((f) => f.relPath), ['week1/a.md'], "the source's own include wins; both excludes apply");
  });

  it('never reads secret-looking files, even when hidden files or every file are included, and lists them', async () => {
    const root = tempDir();
    tree(root, {
      'notes.md': '# n',
      '.env': 'KEY=1',
      '.env.local.txt': 'KEY=2',
      'deploy/server.pem': 'x',
      'deploy/id_rsa': 'x',
      'deploy/id_ed25519.pub.txt': 'x',
      'ci/.npmrc': 'x',
      '.git-credentials': 'x',
      'keys/credentials.json': '{}',
      'keystore.md': '# an honest note about keystores',
    });
    for (const extra of [{}, { include_hidden: true }, { include_hidden: true, include: ['**/*'] }]) {
      const { files, skipped } = await walkSource(folder(root, extra));
      assert.ok(files.every((f) => ['notes.md', 'keystore.md'].includes(f.relPath)), JSON.stringify(files.map((f) => f.relPath)));
      assert.deepEqual(
        skipped.filter((k) => k.reason === 'secret_looking').map((k) => path.relative(root, k.path)).sort(),
        ['.env', '.env.local.txt', '.git-credentials', 'ci/.npmrc', 'deploy/id_ed25519.pub.txt', 'deploy/id_rsa', 'deploy/server.pem', 'keys/credentials.json'],
      );
    }
  });

  it('does not follow a symlink out of the source (a file or a folder), lists it, and follows one that stays inside', async () => {
    const outside = tempDir();
    tree(outside, { 'secret-plans.md': '# not part of the notes', 'more/deep.md': '# deep' });
    const root = tempDir();
    tree(root, { 'a/note.md': '# n' });
    fs.symlinkSync(path.join(outside, 'secret-plans.md'), path.join(root, 'plans.md'));
    fs.symlinkSync(path.join(outside, 'more'), path.join(root, 'more'));
    fs.symlinkSync(path.join(root, 'a'), path.join(root, 'alias'));
    const { files, skipped, problems } = await walkSource(folder(root));
    assert.deepEqual(files.map((f) => f.relPath), ['a/note.md']);
    assert.deepEqual(problems.map((p) => [path.relative(root, p.failure.path), p.failure.code]), [['alias', 'symlink_loop']], 'the folder inside is reached once');
    assert.deepEqual(
      skipped.map((k) => [path.relative(root, k.path), k.kind, k.reason]),
      [
        ['more', 'folder', 'outside_source'],
        ['plans.md', 'file', 'outside_source'],
      ],
    );
  });

  it('reports symlink loops and broken links and goes on', async () => {
    const root = tempDir();
    tree(root, { 'a/note.md': '# n' });
    fs.symlinkSync('..', path.join(root, 'a', 'loop'));
    fs.symlinkSync(path.join(root, 'missing.md'), path.join(root, 'dangling.md'));
    fs.symlinkSync(path.join(root, 'a', 'note.md'), path.join(root, 'linked.md'));
    const { files, problems } = await walkSource(folder(root));
    assert.deepEqual(files.map((f) => f.relPath), ['a/note.md', 'linked.md']);
    const real = fs.realpathSync(path.join(root, 'a', 'note.md'));
    assert.deepEqual(files.map((f) => f.realPath), [real, real], 'a link and its target are one file');
    assert.deepEqual(
      problems.map((p) => [path.relative(root, p.failure.path), p.failure.code]),
      [
        ['a/loop', 'symlink_loop'],
        ['dangling.md', 'unreadable'],
      ],
    );
  });

  it('reports a file whose name is not UTF-8 (GBK names from an unpacked zip) by what it is, with the name as GBK', async () => {
    const root = tempDir();
    tree(root, { 'ok.md': '# ok' });
    const gbk = Buffer.from([0xb1, 0xca, 0xbc, 0xc7]); // 笔记 in GBK
    const at = (...parts: Buffer[]) => Buffer.concat([Buffer.from(`${root}/`), ...parts]);
    fs.writeFileSync(at(gbk, Buffer.from('.md')), '# 笔记');
    fs.writeFileSync(at(gbk, Buffer.from('.png')), 'not a note');
    fs.mkdirSync(at(gbk));
    const { files, problems } = await walkSource(folder(root));
    assert.deepEqual(files.map((f) => f.relPath), ['ok.md']);
    assert.deepEqual(
      problems.map((p) => [p.failure.code, p.failure.message]).sort(),
      [
        ['unreadable', 'the file name is not valid UTF-8 (read as GBK it is “笔记.md”); rename it to read it'],
        ['unreadable', 'the folder name is not valid UTF-8 (read as GBK it is “笔记”); rename it to read it'],
      ],
    );
  });

  it('a source folder that no longer exists is one not_found problem that says what to do', async () => {
    const root = tempDir();
    const gone = path.join(root, 'old-notes');
    const { files, problems } = await walkSource(folder(gone));
    assert.deepEqual(files, []);
    assert.deepEqual(
      problems.map((p) => p.failure),
      [{ path: gone, stage: 'read', code: 'not_found', message: 'the source folder no longer exists (restore it, or `docqa sources remove` it)' }],
    );
  });

  it('a file source is just that file, whatever its extension', async () => {
    const root = tempDir();
    tree(root, { 'x.png': 'x' });
    const { files } = await walkSource({ ...folder(path.join(root, 'x.png')), kind: 'file' });
    assert.deepEqual(files.map((f) => f.relPath), ['x.png']);
  });
});
