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
    const { files, problems } = await walkSource(folder(root));
    assert.deepEqual(
      files.map((f) => f.relPath),
      ['a.txt', 'b.md', 'paper.PDF', 'sub/c.md'],
    );
    assert.deepEqual(problems, []);
    const hidden = await walkSource(folder(root, { include_hidden: true }));
    assert.ok(hidden.files.some((f) => f.relPath === '.obsidian/config.md'));
    assert.ok(!hidden.files.some((f) => f.relPath.startsWith('node_modules/')));
  });

  it('applies include and exclude globs relative to the folder', async () => {
    const root = tempDir();
    tree(root, { 'week1/a.md': 'a', 'week1/b.txt': 'b', 'week2/c.md': 'c', 'archive/old.md': 'o' });
    const only = await walkSource(folder(root, { include: ['**/*.md'], exclude: ['archive/**'] }));
    assert.deepEqual(only.files.map((f) => f.relPath), ['week1/a.md', 'week2/c.md']);
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
