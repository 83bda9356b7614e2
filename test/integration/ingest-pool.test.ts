import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDir } from '../../src/index/data-dir';
import { createIngestPool } from '../../src/index/ingest-pool';
import { ingestSources } from '../../src/index/ingest-sources';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources';
import { FIXTURES, tempDir } from '../helpers';

const WORKER = path.join(__dirname, '..', '..', 'dist', 'ingest-worker.js');

describe('ingestion in worker threads', () => {
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
      // Copy-on-write: documents taken over unparsed are the same bytes as freshly parsed ones.
      const previous = new Map(threaded.documents.map((d) => [d.path, d]));
      const cow = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { pool, previous });
      assert.equal(cow.reused.size, threaded.documents.length);
      assert.equal(JSON.stringify(cow.documents), JSON.stringify(threaded.documents));
      assert.ok(threaded.documents.length >= 15);
      assert.ok(threaded.failed_documents.some((f) => f.code === 'encrypted'));
    } finally {
      await pool.close();
    }
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
