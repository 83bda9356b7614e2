import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { tempDir } from '../helpers';

const WORKER = path.join(__dirname, '..', '..', 'dist', 'ingest-worker.js');
const identity = { doc_id: 'd', source_label: 's', aliases: [] };

/** `n` small Markdown files in a fresh folder. */
function notes(n: number): string[] {
  const dir = tempDir();
  return Array.from({ length: n }, (_, i) => {
    const file = path.join(dir, `note-${i}.md`);
    fs.writeFileSync(file, `# Note ${i}\n\nA paragraph about topic ${i}, long enough to be a block of its own.\n`);
    return file;
  });
}

describe('an ingestion pool starts the workers its work needs', () => {
  it('one file starts one worker of a pool of four (a one-book build paid for starting them all)', async () => {
    assert.ok(fs.existsSync(WORKER), 'run npm run build first');
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, WORKER, 4);
    try {
      assert.equal(pool.started, 0, 'no worker before the first job');
      const [file] = notes(1);
      const o = await pool.run(file!, identity);
      assert.equal(o.ok, true);
      assert.equal(pool.started, 1);
      // One file after another: the idle worker takes each, no other starts.
      for (const f of notes(3)) assert.equal((await pool.run(f, identity)).ok, true);
      assert.equal(pool.started, 1);
    } finally {
      await pool.close();
    }
  });

  it('files queued at once start a worker each, up to the pool size, and every file is parsed', async () => {
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, WORKER, 3);
    try {
      const two = notes(2);
      const outcomes = await Promise.all(two.map((f) => pool.run(f, identity)));
      assert.deepEqual(outcomes.map((o) => o.ok), [true, true]);
      assert.equal(pool.started, 2);
      const many = notes(12);
      const all = await Promise.all(many.map((f) => pool.run(f, identity)));
      assert.ok(all.every((o) => o.ok === true));
      assert.deepEqual(all.map((o) => (o.ok === true ? path.basename(o.document.path) : '')), many.map((f) => path.basename(f)));
      assert.equal(pool.started, 3, 'never more than the pool size');
    } finally {
      await pool.close();
    }
  });
});
