/**
 * The ingestion pool's limits on one real worker (dist/ingest-worker.js) and real files: a document
 * over its heap fails alone, a document over its time fails alone, a document that waited behind
 * another is not charged for the wait, and a worker that cannot start fails its jobs instead of
 * respawning forever. One worker, so that every job shares it with the others.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createIngestPool, type ScanOutcome } from '../../src/index/ingest/ingest-pool';
import { IngestOptions } from '../../src/index/model';
import { textPdf } from '../fixtures/pdf-writer';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';

const WORKER = path.join(__dirname, '..', '..', 'dist', 'ingest-worker.js');
const identity = (p: string) => ({ doc_id: path.basename(p), source_label: 'faults', aliases: [] });

/** A Markdown list of `items` items: parsing takes about 4 µs and 1 KB of heap per item. */
function list(dir: string, name: string, items: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `- item ${name} ${'x'.repeat(20)}\n`.repeat(items));
  return file;
}

function note(dir: string, i: number): string {
  const file = path.join(dir, `note-${i}.md`);
  fs.writeFileSync(file, `# Note ${i}\n\nferns and mosses ${i}\n`);
  return file;
}

async function runAll(files: string[], options: Partial<IngestOptions>): Promise<{ outcomes: ScanOutcome[]; ms: number }> {
  const pool = createIngestPool(IngestOptions.parse(options), WORKER, 1);
  try {
    const t = performance.now();
    const outcomes = await Promise.all(files.map((f) => pool.run(f, identity(f))));
    return { outcomes, ms: performance.now() - t };
  } finally {
    await pool.close();
  }
}

const codes = (outcomes: ScanOutcome[]) => outcomes.map((o) => (o.ok === true ? 'ok' : o.ok === false ? o.failure.code : 'unchanged'));

describe('ingestion pool limits', () => {
  it('a document over the worker heap fails out_of_memory alone, before or behind the notes that share its worker', async () => {
    const dir = tempDir();
    // 1.5 million items: well past a 256 MB heap.
    const bomb = list(dir, 'bomb.md', 1_500_000);
    const notes = [0, 1, 2].map((i) => note(dir, i));
    for (const files of [[bomb, ...notes], [notes[0]!, bomb, notes[1]!, notes[2]!]]) {
      const { outcomes } = await runAll(files, { max_worker_memory_mb: 256 });
      assert.deepEqual(codes(outcomes), files.map((f) => (f === bomb ? 'out_of_memory' : 'ok')));
      const failed = outcomes[files.indexOf(bomb)]!;
      assert.ok(failed.ok === false);
      assert.equal(failed.failure.path, bomb);
      assert.match(failed.failure.message, /ran out of memory: .*more than the 256 MB a worker may use \(the ingest\.max_worker_memory_mb limit\)/);
    }
    recordTrials({ area: 'hostile input', fault: 'a Markdown file past the worker heap (256 MB), sharing its worker with three notes, first and second in line', trials: 2, outcome: 'fails alone as parse/out_of_memory naming the limit; the notes beside it are indexed' }, __filename);
  });

  it('the time limit runs from when the worker begins a document, not while it waits behind another', async () => {
    const dir = tempDir();
    const a = list(dir, 'a.md', 300_000);
    const b = list(dir, 'b.md', 300_000);
    // Measured here first, with no limit to speak of: a fresh worker's start and first document (`first`),
    // and the second document behind it (`second`: a warm parser is faster).
    const first = (await runAll([a], {})).ms;
    const both = await runAll([a, b], {});
    assert.deepEqual(codes(both.outcomes), ['ok', 'ok']);
    const second = Math.max(1, both.ms - first);
    // b waits behind a for about `first` and then takes about `second`: a limit counted from when it was
    // sent would stop it; counted from when it begins, both fit, with half of `second` to spare each way.
    const limit = Math.ceil(first + second / 2);
    const { outcomes } = await runAll([a, b], { max_document_ms: limit });
    assert.deepEqual(codes(outcomes), ['ok', 'ok'], `limit ${limit} ms; the first document ${Math.round(first)} ms with the worker's start, the second ${Math.round(second)} ms`);
    // A document four times as long is stopped at the same limit; the note behind it is not blamed.
    const slow = list(dir, 'slow.md', 1_200_000);
    const n = note(dir, 0);
    const stopped = await runAll([slow, n], { max_document_ms: limit });
    assert.deepEqual(codes(stopped.outcomes), ['too_slow', 'ok']);
    recordTrials({ area: 'hostile input', fault: 'a document queued behind another on its worker, and one over ingest.max_document_ms with a note behind it', trials: 2, outcome: 'the wait is not charged to the document; the slow one fails parse/too_slow alone' }, __filename);
  });

  it('a fresh worker\'s start and pdf.js start-up are not charged to its first PDF (689-byte files failed as too slow at 1 s)', async () => {
    const dir = tempDir();
    const tiny = [0, 1, 2].map((i) => {
      const file = path.join(dir, `tiny-${i}.pdf`);
      fs.writeFileSync(file, textPdf([{ lines: [{ text: `A short note, number ${i}.`, y: 700 }] }]));
      return file;
    });
    // Measured first: the whole wait for the first PDF of a fresh worker (its start, pdf.js's), and the
    // quickest of three PDFs on the warm worker after it.
    const pool = createIngestPool(IngestOptions.parse({}), WORKER, 1);
    let t = performance.now();
    await pool.run(tiny[0]!, identity(tiny[0]!));
    const cold = performance.now() - t;
    let warm = Infinity;
    for (const f of [tiny[1]!, tiny[2]!, tiny[1]!]) {
      t = performance.now();
      await pool.run(f, identity(f));
      warm = Math.min(warm, Math.max(1, performance.now() - t));
    }
    await pool.close();
    // Half the cold start: the start-up alone is over it, and a parse has room under it (4 warm ones at least).
    const limit = Math.ceil(cold / 2);
    assert.ok(limit >= 4 * warm, `a cold start (${Math.round(cold)} ms) should take 8 warm parses (${Math.round(warm)} ms each) at least, or this test shows nothing`);
    const { outcomes } = await runAll(tiny, { max_document_ms: limit });
    assert.deepEqual(codes(outcomes), ['ok', 'ok', 'ok'], `limit ${limit} ms; cold ${Math.round(cold)} ms, warm ${Math.round(warm)} ms`);
    recordTrials({ area: 'hostile input', fault: 'tiny PDFs in a fresh worker with ingest.max_document_ms below the worker\'s and pdf.js\'s start-up', trials: 3, outcome: 'indexed: the limit runs from when the worker is ready and pdf.js has started' }, __filename);
  });

  it('a worker whose script cannot load fails its jobs as internal errors instead of respawning forever', async () => {
    const dir = tempDir();
    const broken = path.join(dir, 'broken-worker.js');
    fs.writeFileSync(broken, "throw new Error('this worker cannot start');\n");
    const notes = [0, 1, 2, 3, 4].map((i) => note(dir, i));
    const pool = createIngestPool(IngestOptions.parse({}), broken, 1);
    try {
      const outcomes = await Promise.all(notes.map((f) => pool.run(f, identity(f))));
      assert.deepEqual(codes(outcomes), notes.map(() => 'internal'));
      for (const o of outcomes) assert.ok(o.ok === false && /the parser stopped: this worker cannot start/.test(o.failure.message), JSON.stringify(o));
    } finally {
      await pool.close();
    }
  });
});
