import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import type { IngestOptions } from '../../src/index/model';
import { UNMERGED, fixture, tempDir } from '../helpers';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';

// This test process parses PDFs itself, as an ingestion worker does (pdf.js runs in workers only).
preparePdfThread();

const id = { doc_id: 'x', source_label: 's', aliases: [] };

async function failureOf(file: string, options: IngestOptions = UNMERGED) {
  const r = await ingestFile(file, id, options);
  assert.equal(r.ok, false, `${file} should fail`);
  return r.ok ? null : r.failure;
}

describe('ingestion failures: each bad input says what was wrong', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['empty.md', 'read', 'empty', /empty/],
    ['blank.md', 'block', 'empty', /no text/],
    ['binary.txt', 'decode', 'binary', /NUL|binary/],
    ['latin1.txt', 'decode', 'encoding', /UTF-8.*GB18030/],
    ['broken.pdf', 'parse', 'corrupt', /Invalid PDF/],
    ['encrypted.pdf', 'parse', 'encrypted', /password/],
    ['image.png', 'read', 'unsupported_format', /\.md .*\.pdf|unsupported/],
  ];
  for (const [file, stage, code, message] of cases) {
    it(`${file} → ${stage}/${code}`, async () => {
      const f = await failureOf(fixture('bad', file));
      assert.equal(f?.path, fixture('bad', file));
      assert.equal(f?.stage, stage);
      assert.equal(f?.code, code);
      assert.match(f?.message ?? '', message);
    });
  }

  it('a file over the configured size limit fails before it is read', async () => {
    const f = await failureOf(fixture('pdf', 'pdkids.pdf'), { ...UNMERGED, max_file_bytes: 1000 });
    assert.deepEqual([f?.stage, f?.code], ['read', 'too_large']);
    assert.match(f?.message ?? '', /546144 bytes.*1000-byte limit/);
  });

  it('a page of headings only says so, instead of calling itself empty', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'outline.md'), '# Chapter 1\n\n## Cells\n\n## Tissues\n');
    const f = await failureOf(path.join(dir, 'outline.md'));
    assert.deepEqual([f?.stage, f?.code, f?.message], ['block', 'empty', 'document has 3 heading(s) but no text under them to index']);
  });

  it('a missing file and a directory are reported, not thrown', async () => {
    const dir = tempDir();
    assert.deepEqual(
      [await failureOf(path.join(dir, 'gone.md'))].map((f) => [f?.stage, f?.code]),
      [['read', 'not_found']],
    );
    fs.mkdirSync(path.join(dir, 'folder.md'));
    const f = await failureOf(path.join(dir, 'folder.md'));
    assert.deepEqual([f?.stage, f?.code], ['read', 'unreadable']);
  });
});
