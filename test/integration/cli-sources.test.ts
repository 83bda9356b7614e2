import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fixture, tempDir } from '../helpers';
import { makeCli } from './cli';

interface ScanDoc {
  doc_id: string;
  path: string;
  title: string;
  lang: string;
  blocks: number;
}
interface Scan {
  documents: ScanDoc[];
  failed_documents: Array<{ path: string; stage: string; code: string; message: string }>;
}

function copyTree(src: string, dst: string): void {
  fs.cpSync(src, dst, { recursive: true });
}

describe('docqa sources', () => {
  it('adds, lists and removes sources; adding the same folder twice changes nothing', () => {
    const cli = makeCli();
    const notes = tempDir();
    copyTree(fixture('markdown'), notes);
    const added = cli.json<Array<{ status: string; source: { id: string; kind: string; label: string } }>>(['sources', 'add', notes, '--label', 'History notes', '--json']);
    assert.deepEqual(added.map((a) => [a.status, a.source.kind, a.source.label]), [['added', 'folder', 'History notes']]);
    const scan1 = cli.json<Scan>(['sources', 'scan', '--json']);
    const again = cli.json<typeof added>(['sources', 'add', notes, '--json']);
    assert.equal(again[0]!.status, 'exists');
    assert.equal(cli.json<unknown[]>(['sources', 'list', '--json']).length, 1);
    const scan2 = cli.json<Scan>(['sources', 'scan', '--json']);
    assert.deepEqual(scan2.documents.map((d) => [d.path, d.doc_id]), scan1.documents.map((d) => [d.path, d.doc_id]));
    assert.equal(scan1.documents.length, 4);
    assert.equal(new Set(scan1.documents.map((d) => d.doc_id)).size, 4);

    const removed = cli.run(['sources', 'remove', notes]);
    assert.equal(removed.code, 0);
    assert.match(removed.stdout, /removed: folder/);
    assert.deepEqual(cli.json(['sources', 'list', '--json']), []);
    const data = JSON.parse(fs.readFileSync(path.join(cli.store, 'sources.json'), 'utf8')) as { formatVersion: number };
    assert.equal(data.formatVersion, 1);
  });

  it('a renamed or moved file keeps its doc_id; an edited file keeps it too', () => {
    const cli = makeCli();
    const notes = tempDir();
    copyTree(fixture('markdown'), notes);
    cli.json(['sources', 'add', notes, '--json']);
    const before = cli.json<Scan>(['sources', 'scan', '--json']);
    const idOf = (scan: Scan, rel: string) => scan.documents.find((d) => d.path === path.join(notes, rel))?.doc_id;
    const original = idOf(before, 'zh-history.md');
    const cellId = idOf(before, 'cell-notes.md');
    fs.mkdirSync(path.join(notes, 'archive'));
    fs.renameSync(path.join(notes, 'zh-history.md'), path.join(notes, 'archive', '历史.md'));
    fs.appendFileSync(path.join(notes, 'cell-notes.md'), '\nOne more line.\n');
    const after = cli.json<Scan>(['sources', 'scan', '--json']);
    assert.ok(original);
    assert.equal(idOf(after, 'archive/历史.md'), original);
    assert.equal(idOf(after, 'zh-history.md'), undefined);
    assert.equal(idOf(after, 'cell-notes.md'), cellId);
  });

  it('bad files become failed_documents with what was wrong, and the rest of the batch comes through', () => {
    const cli = makeCli({ DOCQA_MAX_FILE_BYTES: '300000' });
    const mixed = tempDir();
    copyTree(fixture('bad'), mixed);
    fs.copyFileSync(fixture('markdown', 'zh-history.md'), path.join(mixed, 'good.md'));
    fs.copyFileSync(fixture('pdf', 'photosynthesis-zh.pdf'), path.join(mixed, 'good.pdf'));
    fs.copyFileSync(fixture('pdf', 'pdkids.pdf'), path.join(mixed, 'big.pdf'));
    fs.symlinkSync(path.join(mixed, 'nowhere.md'), path.join(mixed, 'dangling.md'));
    cli.json(['sources', 'add', mixed, '--json']);
    const r = cli.run(['sources', 'scan', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const scan = JSON.parse(r.stdout) as Scan;
    assert.deepEqual(scan.documents.map((d) => [path.basename(d.path), d.lang]), [['good.md', 'zh'], ['good.pdf', 'zh']]);
    assert.deepEqual(
      scan.failed_documents.map((f) => [path.basename(f.path), f.stage, f.code]),
      [
        ['big.pdf', 'read', 'too_large'],
        ['binary.txt', 'decode', 'binary'],
        ['blank.md', 'block', 'empty'],
        ['broken.pdf', 'parse', 'corrupt'],
        ['dangling.md', 'read', 'unreadable'],
        ['empty.md', 'read', 'empty'],
        ['encrypted.pdf', 'parse', 'encrypted'],
        ['latin1.txt', 'decode', 'encoding'],
      ],
    );
    assert.ok(scan.failed_documents.every((f) => f.message.length > 5));
  });

  it('a file reached by two paths (a symlink, a linked folder, overlapping sources) is one document, and a problem is said once', () => {
    const cli = makeCli();
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'notes', 'week1'), { recursive: true });
    fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(root, 'notes', 'week1', 'cells.md'));
    fs.copyFileSync(fixture('markdown', 'zh-history.md'), path.join(root, 'notes', 'history.md'));
    fs.symlinkSync(path.join('week1', 'cells.md'), path.join(root, 'notes', 'current.md'));
    fs.symlinkSync('..', path.join(root, 'notes', 'week1', 'up'));
    fs.symlinkSync(path.join(root, 'nowhere.md'), path.join(root, 'notes', 'dangling.md'));
    cli.json(['sources', 'add', path.join(root, 'notes'), '--json']);
    cli.json(['sources', 'add', path.join(root, 'notes', 'week1'), '--json']);
    const scan = cli.json<Scan>(['sources', 'scan', '--json']);
    const real = fs.realpathSync(root);
    assert.deepEqual(scan.documents.map((d) => path.relative(real, d.path)), ['notes/history.md', 'notes/week1/cells.md']);
    assert.deepEqual(
      scan.failed_documents.map((f) => [path.relative(real, f.path), f.code]),
      [
        ['notes/dangling.md', 'unreadable'],
        ['notes/week1/up', 'symlink_loop'],
      ],
      'the link out of the second source (notes/week1/up → notes) is not followed from there',
    );
  });

  it('exit status: 2 for usage errors, 1 for a missing path, with one clear line on stderr', () => {
    const cli = makeCli();
    const unknown = cli.run(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
    const missing = cli.run(['sources', 'add', '/definitely/not/here']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'docqa: no such file or folder: /definitely/not/here\n');
    const image = fixture('bad', 'image.png');
    const unsupported = cli.run(['sources', 'add', fixture('text'), image]);
    assert.equal(unsupported.code, 1);
    assert.match(unsupported.stderr, /^docqa: unsupported file type: .*image\.png \(supported: .*\.md .*\.pdf .*\.txt.*\)\n$/);
    assert.match(cli.run(['sources', 'list']).stdout, /^no sources;/, 'nothing of that command was added');
    const badEnv = cli.run(['sources', 'scan'], { DOCQA_BLOCK_MAX_TOKENS: 'lots' });
    assert.equal(badEnv.code, 2);
    assert.match(badEnv.stderr, /DOCQA_BLOCK_MAX_TOKENS must be a whole number/);
    const badChunking = cli.run(['sources', 'scan'], { DOCQA_BLOCK_TARGET_TOKENS: '900', DOCQA_BLOCK_MAX_TOKENS: '100' });
    assert.equal(badChunking.code, 2);
    assert.match(badChunking.stderr, /target_tokens must not exceed max_tokens/);
    assert.equal(cli.run(['sources', 'remove', 'nothing-like-this']).code, 1);
  });

  it('a damaged sources.json is reported by name and left untouched', () => {
    const cli = makeCli();
    fs.mkdirSync(cli.store, { recursive: true });
    const file = path.join(cli.store, 'sources.json');
    fs.writeFileSync(file, '{"formatVersion": 1, "sources": [');
    const r = cli.run(['sources', 'add', fixture('markdown')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /sources\.json is not valid JSON/);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"formatVersion": 1, "sources": [');
  });

  it('uses --store over DOCQA_HOME and never touches ~/.docqa', () => {
    const cli = makeCli();
    const other = tempDir();
    assert.equal(cli.run(['--store', other, 'sources', 'add', fixture('text')]).code, 0);
    assert.ok(fs.existsSync(path.join(other, 'sources.json')));
    assert.ok(!fs.existsSync(cli.store));
    assert.ok(!fs.existsSync(path.join(cli.home, '.docqa')));
  });
});
