import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { IngestOutcome } from '../../src/index/ingest/ingest-file';
import { fixture } from '../helpers';
import { CLI, makeCli } from './cli';

describe('docqa inspect', () => {
  it('ends quietly when its reader closes the pipe early (`docqa inspect FILE | head`)', async () => {
    const { home, store } = makeCli();
    const child = spawn(process.execPath, [CLI, 'inspect', fixture('markdown', 'zh-history.md')], { env: { PATH: process.env.PATH ?? '', HOME: home, DOCQA_HOME: store }, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader is gone before the first line: every write the command makes meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  it('prints the document, its section tree and blocks with locations as JSON (Markdown)', () => {
    const cli = makeCli();
    const r = cli.run(['inspect', fixture('markdown', 'cell-notes.md'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const out = JSON.parse(r.stdout) as IngestOutcome;
    assert.ok(out.ok);
    if (!out.ok) return;
    assert.equal(out.document.title, 'Cell Biology Notes');
    assert.equal(out.document.sections[3]!.path, 'Cells > Setup (2)');
    assert.deepEqual(out.document.blocks[1]!.location, { kind: 'lines', line_start: 10, line_end: 10 });
  });

  it('reads a CJK PDF through the built bundle’s own CMaps, and prints only JSON on stdout', () => {
    const cli = makeCli();
    const r = cli.run(['inspect', fixture('pdf', 'photosynthesis-zh.pdf'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const out = JSON.parse(r.stdout) as IngestOutcome;
    assert.ok(out.ok && out.document.blocks.some((b) => b.text.includes('光反应发生在叶绿体的类囊体膜上')));
  });

  it('shows a readable tree and the doc_id once the file is registered', () => {
    const cli = makeCli();
    const file = fixture('markdown', 'zh-history.md');
    const before = cli.run(['inspect', file]);
    assert.match(before.stdout, /doc_id: +\(unregistered\)/);
    cli.json(['sources', 'add', file, '--json']);
    const scan = cli.json<{ documents: Array<{ doc_id: string }> }>(['sources', 'scan', '--json']);
    const after = cli.run(['inspect', file]);
    assert.equal(after.code, 0);
    assert.match(after.stdout, new RegExp(`doc_id: +${scan.documents[0]!.doc_id}\\n`));
    // The title as written; its path writes the `>` as `›` (one separator only between sections).
    assert.match(after.stdout, /\[5\] 人物 > 张骞 /);
    assert.match(after.stdout, /\[中国历史笔记 > 汉朝 \(2\) > 人物 › 张骞\]/);
    assert.match(after.stdout, /#0 d[0-9a-f]+#b[0-9a-f]{8} {2}line 5 {2}\d+ tokens {2}\[中国历史笔记 > 秦朝\]/);
  });

  it('reports a failure with its stage, code and reason', () => {
    const cli = makeCli();
    const r = cli.run(['inspect', fixture('bad', 'encrypted.pdf')]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /FAILED at parse: encrypted — PDF is password-protected/);
    const j = JSON.parse(cli.run(['inspect', fixture('bad', 'latin1.txt'), '--json']).stdout) as IngestOutcome;
    assert.deepEqual(j.ok ? null : [j.failure.stage, j.failure.code], ['decode', 'encoding']);
  });

  it('a path that is no file is an error with status 1, not a failed document', () => {
    const cli = makeCli();
    const missing = cli.run(['inspect', path.join(fixture('markdown'), 'no-such-note.md')]);
    assert.deepEqual([missing.code, missing.stdout, missing.stderr], [1, '', `docqa: no such file: ${path.join(fixture('markdown'), 'no-such-note.md')}\n`]);
    const folder = cli.run(['inspect', fixture('markdown'), '--json']);
    assert.deepEqual([folder.code, folder.stdout], [1, '']);
    assert.match(folder.stderr, /is a folder: inspect shows one file \(add a folder with `docqa sources add`\)/);
  });
});
