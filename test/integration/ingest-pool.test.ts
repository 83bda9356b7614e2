import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { ingestSources } from '../../src/index/ingest/ingest-sources';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources/sources';
import { FIXTURES, fixture, tempDir } from '../helpers';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';

// This test process parses PDFs itself, as an ingestion worker does (pdf.js runs in workers only).
preparePdfThread();

const WORKER = path.join(__dirname, '..', '..', 'dist', 'ingest-worker.js');

describe('ingestion in worker threads', () => {
  it('hands a build serialised documents, each written into a buffer the host gave back when one holds it', async () => {
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, WORKER, 1);
    try {
      const identity = { doc_id: '', source_label: 'f', aliases: [] };
      const large = fixture('markdown', 'cell-notes.md');
      const small = fixture('markdown', 'zh-history.md');
      const first = await pool.runSerialized(large, identity);
      assert.ok(first.ok === true && 'serialized' in first);
      const asObjects = await pool.run(large, identity);
      assert.ok(asObjects.ok === true);
      assert.equal(new TextDecoder().decode(first.serialized.json), `${JSON.stringify(asObjects.document)}\n`);
      assert.equal(first.serialized.json.buffer.byteLength, first.serialized.json.byteLength);
      const size = first.serialized.json.byteLength;
      first.serialized.release!();
      // The smaller document comes back in the larger one's buffer: the worker wrote it there.
      const second = await pool.runSerialized(small, identity);
      assert.ok(second.ok === true && 'serialized' in second);
      assert.equal(second.serialized.json.buffer.byteLength, size);
      assert.ok(second.serialized.json.byteLength < size);
      const again = await pool.run(small, identity);
      assert.ok(again.ok === true);
      assert.equal(new TextDecoder().decode(second.serialized.json), `${JSON.stringify(again.document)}\n`);
    } finally {
      await pool.close();
    }
  });

  it('gives byte-identical documents and failures to in-process ingestion, in the same order', async () => {
    assert.ok(fs.existsSync(WORKER), 'run npm run build first');
    const store = new DataDir(tempDir());
    await addSources(store, [FIXTURES]);
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, WORKER, 2);
    assert.equal(pool.size, 2);
    try {
      const threaded = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { pool });
      const inProcess = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
      assert.equal(JSON.stringify(threaded), JSON.stringify(inProcess));
      // Copy-on-write: files whose bytes hash the same are taken over unparsed, with the same ids.
      const previous = new Map(threaded.documents.map((d) => [d.path, { path: d.path, content_hash: d.content_hash, byte_size: d.byte_size, mtime_ms: threaded.mtimes.get(d.path)!, doc_id: d.doc_id }]));
      const cow = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { pool, previous });
      assert.equal(cow.documents.length, 0);
      assert.deepEqual(
        cow.reused.map((r) => [r.previous.path, r.doc_id]),
        threaded.documents.map((d) => [d.path, d.doc_id]),
      );
      assert.ok(threaded.documents.length >= 15);
      assert.ok(threaded.failed_documents.some((f) => f.code === 'encrypted'));
    } finally {
      await pool.close();
    }
  });

  it('skips reading a file whose size and mtime are unchanged, except when it was modified too close to the previous build (racy)', async () => {
    const root = tempDir();
    const notes = path.join(root, 'notes');
    fs.mkdirSync(notes);
    const file = path.join(notes, 'a.md');
    fs.writeFileSync(file, '# A\n\nalpha beta\n');
    fs.writeFileSync(path.join(notes, 'b.md'), '# B\n\ngamma\n');
    // A whole-second mtime, so that putting it back below is exact.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    fs.utimesSync(file, mtime, mtime);
    const store = new DataDir(path.join(root, 'store'));
    await addSources(store, [notes]);
    const first = await ingestSources(store, DEFAULT_INGEST_OPTIONS);
    const previous = new Map(first.documents.map((d) => [d.path, { path: d.path, content_hash: d.content_hash, byte_size: d.byte_size, mtime_ms: first.mtimes.get(d.path)! }]));
    // Same size, new bytes, old mtime put back: only reading the file can tell.
    fs.writeFileSync(file, '# A\n\nalpha BETA\n');
    fs.utimesSync(file, mtime, mtime);
    const trusted = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { previous, trustMtimeBefore: mtime.getTime() + 10_000 });
    assert.equal(trusted.documents.length, 0, 'size and mtime matched: nothing was read');
    assert.equal(trusted.reused.length, 2);
    // The previous build began less than the granularity after the file's mtime: it is read and hashed.
    const racy = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { previous, trustMtimeBefore: mtime.getTime() });
    assert.deepEqual(racy.documents.map((d) => path.basename(d.path)), ['a.md']);
    assert.ok(racy.documents[0]!.blocks.some((b) => b.text.includes('BETA')));
    assert.deepEqual(racy.reused.map((r) => path.basename(r.previous.path)), ['b.md']);
  });

  it('cancellation stops a batch with an AbortError and leaves the registry as it was', async () => {
    const store = new DataDir(tempDir());
    await addSources(store, [FIXTURES]);
    const ac = new AbortController();
    let seen = 0;
    await assert.rejects(
      ingestSources(store, DEFAULT_INGEST_OPTIONS, {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.stage === 'parse' && ++seen === 3) ac.abort();
        },
      }),
      (e: unknown) => (e as Error).name === 'AbortError',
    );
    assert.ok(!fs.existsSync(store.documentsFile), 'no doc ids were assigned for an unfinished scan');
  });
});
