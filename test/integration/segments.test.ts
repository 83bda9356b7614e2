import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { Bm25OffThread } from '../../src/index/search/bm25-off-thread';
import { DataDir } from '../../src/common/data-dir';
import { EmbeddingConfig } from '../../src/index/embed/embedding-client';
import { hybridSearch } from '../../src/index/search/hybrid-search';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { FILES, type LoadedSnapshot, deleteSnapshot, loadSnapshot, readManifest } from '../../src/index/store/snapshot-store';
import { addSources, removeSource } from '../../src/index/sources/sources';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fakeEmbedding } from '../fakes/scripted-replies';
import { tempDir } from '../helpers';

const DIMS = 16;

function note(i: number, extra = ''): string {
  return `# Note ${i}\n\nTopic ${i} is about subject${i % 7} and item${i}.\n\n## More\n\nDetails of item${i}: ${'words '.repeat(i % 5)}end.${extra}\n`;
}

/** Everything a search can see of a loaded snapshot, and what it answers. */
function fingerprint(s: LoadedSnapshot): unknown {
  const queries = ['subject3 item', 'details of item12', 'renamed topic', 'brand new'];
  return {
    documents: JSON.parse(JSON.stringify(s.documents)) as unknown,
    vectors: s.vectors ? Object.values(s.vectors.globalRows()).map((a) => Buffer.from(a.buffer).toString('base64')) : null,
    hits: queries.map((q) => hybridSearch(s.bm25, s.vectors, q, s.vectors ? Float32Array.from(fakeEmbedding(q, DIMS)) : null, 10)),
  };
}

/** `n` notes in a fresh folder added as the source of a fresh store. */
async function notesStore(n: number): Promise<{ notes: string; store: DataDir }> {
  const root = tempDir();
  const notes = path.join(root, 'notes');
  fs.mkdirSync(notes);
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), note(i));
  const store = new DataDir(path.join(root, 'store'));
  await addSources(store, [notes]);
  return { notes, store };
}

describe('segmented snapshots', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer().start();
  });
  after(async () => server.close());

  for (const mode of ['hybrid', 'keyword-only'] as const) {
    it(`after edits, additions, deletions, a rename and a relabelled source, answer exactly like a build from scratch (${mode})`, async () => {
      const root = tempDir();
      const notes = path.join(root, 'notes');
      fs.mkdirSync(notes);
      for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(notes, `n${String(i).padStart(2, '0')}.md`), note(i));
      const embedding = mode === 'hybrid' ? EmbeddingConfig.parse({ provider: 'openai-compatible', base_url: server.baseURL, model: 'fake', dimensions: DIMS }) : EmbeddingConfig.parse({ provider: 'none' });
      const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, null);
      const store = new DataDir(path.join(root, 'store'));
      await addSources(store, [notes]);
      const build = async (dir: DataDir, batchBlocks?: number, signal?: AbortSignal) => (await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding, embeddingApiKey: '', pool, retention: { keep: 2, keepDays: null }, batchBlocks, signal })).manifest;
      let m = await build(store);
      assert.equal(m.segments.length, 1);
      const edits: Array<() => void> = [
        () => fs.appendFileSync(path.join(notes, 'n05.md'), '\nAn added line about a brand new idea.\n'),
        () => fs.writeFileSync(path.join(notes, 'n40.md'), note(40, ' Brand new file.')),
        () => fs.rmSync(path.join(notes, 'n07.md')),
        () => fs.renameSync(path.join(notes, 'n09.md'), path.join(notes, 'renamed topic.md')),
        () => fs.appendFileSync(path.join(notes, 'n05.md'), '\nEdited again.\n'),
        () => fs.writeFileSync(path.join(notes, 'n12.md'), note(12, ' Rewritten details of item12.')),
        () => fs.appendFileSync(path.join(notes, 'n31.md'), '\nOne more.\n'),
        () => {
          for (let i = 13; i < 30; i++) fs.appendFileSync(path.join(notes, `n${i}.md`), `\nBulk edit ${i}.\n`);
        },
      ];
      const segmentCounts: number[] = [];
      for (const edit of edits) {
        edit();
        m = await build(store);
        segmentCounts.push(m.segments.length);
      }
      // The source gets a new label: documents keep their ids and move to the new segment unparsed.
      await removeSource(store, notes);
      await addSources(store, [notes], { label: 'my notes' });
      m = await build(store);
      assert.ok(m.documents.every((d) => d.source_label === 'my notes'));
      assert.ok(segmentCounts.some((n) => n > 1), `segments over the edits: ${segmentCounts.join(' ')}`);
      assert.ok(segmentCounts.every((n) => n <= 4), `segments over the edits: ${segmentCounts.join(' ')}`);

      const scratch = new DataDir(path.join(root, 'scratch'));
      fs.mkdirSync(scratch.root, { recursive: true });
      fs.copyFileSync(store.documentsFile, scratch.documentsFile); // the same doc_ids
      await addSources(scratch, [notes], { label: 'my notes' });
      const fresh = await build(scratch);
      assert.equal(fresh.segments.length, 1);
      const a = await loadSnapshot(store, m.id);
      const b = await loadSnapshot(scratch, fresh.id);
      assert.deepEqual(fingerprint(a), fingerprint(b));
      assert.ok(a.documents.some((d) => d.path.endsWith('renamed topic.md')));
      assert.ok(!a.documents.some((d) => d.path.endsWith('n07.md')));
      // Written in batches of five blocks (run files merged, batches in flight two at a time): the same
      // segment files, byte for byte, as in one batch.
      const tiny = new DataDir(path.join(root, 'tiny'));
      fs.mkdirSync(tiny.root, { recursive: true });
      fs.copyFileSync(store.documentsFile, tiny.documentsFile);
      await addSources(tiny, [notes], { label: 'my notes' });
      const ac = new AbortController();
      const small = await build(tiny, 5, ac.signal);
      assert.equal(getEventListeners(ac.signal, 'abort').length, 0, 'no listener left on the build signal, however many batches');
      const files = (d: DataDir, mm: typeof m) => {
        const seg = path.join(d.snapshotDir(mm.id), 'segments', mm.segments[0]!.id);
        return fs.readdirSync(seg).sort().map((f) => [f, fs.readFileSync(path.join(seg, f)).toString('base64')]);
      };
      assert.deepEqual(files(tiny, small), files(scratch, fresh));
      await pool.close();
    });
  }

  it('ends the keyword-index worker once the last batch is indexed, before the runs are merged', async () => {
    const { store } = await notesStore(12);
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, null);
    const embedding = EmbeddingConfig.parse({ provider: 'openai-compatible', base_url: server.baseURL, model: 'fake', dimensions: DIMS });
    const events: string[] = [];
    const close = Bm25OffThread.prototype.close;
    Bm25OffThread.prototype.close = function (this: Bm25OffThread) {
      events.push('worker closed');
      return close.call(this);
    };
    try {
      await buildSnapshot(store, {
        ingest: DEFAULT_INGEST_OPTIONS,
        embedding,
        embeddingApiKey: '',
        pool,
        batchBlocks: 5,
        // With embeddings, the one 'index' step is the merge of the batches' runs (see onFinishing).
        onProgress: (p) => void (p.stage === 'index' ? events.push('merging') : undefined),
      });
    } finally {
      Bm25OffThread.prototype.close = close;
      await pool.close();
    }
    assert.equal(events[0], 'worker closed');
    assert.ok(events.includes('merging'));
  });

  it('a parent whose segment files were removed by hand is not built upon: the next build is a full one and answers', async () => {
    const { store } = await notesStore(5);
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, null);
    const embedding = EmbeddingConfig.parse({ provider: 'openai-compatible', base_url: server.baseURL, model: 'fake', dimensions: DIMS });
    const build = async () => (await buildSnapshot(store, { ingest: DEFAULT_INGEST_OPTIONS, embedding, embeddingApiKey: '', pool })).manifest;
    const first = await build();
    fs.rmSync(path.join(store.snapshotDir(first.id), 'segments', first.segments[0]!.id, 'vectors.f32'));
    const second = await build();
    assert.equal(second.state, 'ready');
    assert.equal(second.stats.reused_documents, 0, 'nothing taken from the damaged parent');
    assert.equal(second.stats.embedded_blocks, 0, 'the embedding cache still had every vector');
    const snap = await loadSnapshot(store, second.id);
    assert.equal(snap.documents.length, 5);
    await pool.close();
  });

  it('a snapshot of the older single-file format is named as such, is not used as a parent, and goes with retention', async () => {
    const root = tempDir();
    const notes = path.join(root, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, 'a.md'), note(1));
    const store = new DataDir(path.join(root, 'store'));
    await addSources(store, [notes]);
    const old = 's20250101T000000000-abcdef';
    fs.mkdirSync(store.snapshotDir(old), { recursive: true });
    fs.writeFileSync(path.join(store.snapshotDir(old), FILES.manifest), JSON.stringify({ formatVersion: 1, id: old, state: 'ready' }));
    fs.writeFileSync(store.activeFile, JSON.stringify({ formatVersion: 1, snapshot_id: old }));
    await assert.rejects(loadSnapshot(store, old), (e: Error & { code?: string }) => e.code === 'store_old_version' && /older DocQA \(format 1/.test(e.message) && /docqa index/.test(e.message));
    const other = 's20250102T000000000-abcdef';
    fs.cpSync(store.snapshotDir(old), store.snapshotDir(other), { recursive: true });
    await deleteSnapshot(store, other);
    assert.ok(!fs.existsSync(store.snapshotDir(other)), 'an old-format snapshot can be deleted by hand');
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, null);
    const { manifest } = await buildSnapshot(store, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool, retention: { keep: 0, keepDays: null } });
    assert.equal(manifest.stats.reused_documents, 0);
    assert.equal(manifest.state, 'ready');
    assert.ok(!fs.existsSync(store.snapshotDir(old)), 'the old-format snapshot went with retention');
    assert.equal((await readManifest(store, manifest.id))?.segments.length, 1);
    await pool.close();
  });
});
