import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { hybridSearch } from '../../src/index/search/hybrid-search';
import { loadActiveSnapshot, loadSnapshot } from '../../src/index/store/snapshot-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fakeEmbedding } from '../fakes/scripted-replies';
import { fixture, tempDir } from '../helpers';
import { makeCli } from './cli';

const KEY = 'sk-embed-planted-key-9f8e7d6c';

interface IndexSummary {
  snapshot_id: string;
  state: string;
  activated: boolean;
  documents: number;
  blocks: number;
  failed_documents: Array<{ path: string; stage: string; code: string }>;
  embedding: { provider: string; model?: string; dimensions?: number };
  embedding_tokens: number;
  embedded_blocks: number;
  cached_embeddings: number;
  reused_documents: number;
  segments: number;
  durations_ms: Record<string, number>;
}

/** A folder of `n` small Markdown notes, each with its own words. */
function notesFolder(n: number): string {
  const dir = tempDir('docqa-notes-');
  for (let i = 0; i < n; i++) {
    fs.writeFileSync(path.join(dir, `note-${String(i).padStart(3, '0')}.md`), `# Note ${i}\n\nTopic ${i} covers subject${i} in detail.\n\n## Details\n\nMore about item${i} and its uses.\n`);
  }
  return dir;
}

describe('docqa index and snapshots (fake embedding server over HTTP)', () => {
  let server: FakeOpenAIServer;
  let env: Record<string, string>;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    env = { DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embed', DOCQA_EMBEDDING_DIMENSIONS: '32', DOCQA_EMBEDDING_API_KEY: KEY };
  });
  after(() => server.close());

  it('index --json reports the snapshot, counts, failures, timings and embedding tokens; the tools side loads it', async () => {
    const cli = makeCli(env);
    cli.json(['sources', 'add', fixture('markdown'), fixture('pdf', 'photosynthesis-zh.pdf'), '--json']);
    const r = await cli.runAsync(['index', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as IndexSummary;
    assert.equal(s.state, 'ready');
    assert.equal(s.activated, true);
    assert.equal(s.documents, 5);
    assert.ok(s.blocks > 20);
    assert.deepEqual(s.failed_documents, []);
    assert.deepEqual(s.embedding, { provider: 'openai-compatible', family: `127.0.0.1:${new URL(server.baseURL).port}/v1`, model: 'fake-embed', dimensions: 32 });
    assert.ok(s.embedding_tokens > 0);
    assert.equal(s.embedded_blocks + s.cached_embeddings, s.blocks);
    for (const k of ['ingest', 'embed', 'index', 'write']) assert.equal(typeof s.durations_ms[k], 'number');

    const snap = await loadActiveSnapshot(new DataDir(cli.store));
    assert.equal(snap?.manifest.id, s.snapshot_id);
    const hits = hybridSearch(snap!.bm25, snap!.vectors, '卡尔文循环', Float32Array.from(fakeEmbedding('卡尔文循环', 32)), 5);
    const [d, b] = snap!.blockRefs[hits[0]!.block]!;
    assert.match(snap!.documents[d]!.blocks[b]!.text, /卡尔文循环/);
    // The key went to the server and nowhere on disk.
    for (const f of fs.readdirSync(cli.store, { recursive: true }) as string[]) {
      const p = path.join(cli.store, f);
      if (fs.statSync(p).isFile()) assert.ok(!fs.readFileSync(p).includes(KEY), `${f} contains the key`);
    }
  });

  it('re-indexing after editing one file of 200 embeds only that file’s new blocks', async () => {
    const cli = makeCli(env);
    const dir = notesFolder(200);
    cli.json(['sources', 'add', dir, '--json']);
    const first = JSON.parse((await cli.runAsync(['index', '--yes', '--json'])).stdout) as IndexSummary;
    assert.equal(first.documents, 200);
    const before = server.embeddedInputs.length;
    fs.appendFileSync(path.join(dir, 'note-042.md'), '\n## Added later\n\nA brand new paragraph about photosynthesis.\n');
    const second = JSON.parse((await cli.runAsync(['index', '--yes', '--json'])).stdout) as IndexSummary;
    const sent = server.embeddedInputs.slice(before);
    assert.deepEqual(sent, ['A brand new paragraph about photosynthesis.']);
    assert.equal(second.embedded_blocks, 1);
    assert.equal(second.cached_embeddings, second.blocks - 1);
    assert.equal(second.reused_documents, 199, 'unchanged files are not parsed again (copy-on-write)');
    assert.equal(second.segments, 2, 'the 200 unchanged documents stay in their segment; the edited one makes a new one');
    assert.equal(first.reused_documents, 0);
    assert.notEqual(second.snapshot_id, first.snapshot_id);
    // Unchanged documents stay in the parent's segment (hard-linked, not rewritten); only the edited file
    // makes a new segment.
    const m2 = JSON.parse(fs.readFileSync(path.join(cli.store, 'snapshots', second.snapshot_id, 'manifest.json'), 'utf8')) as { segments: Array<{ id: string; documents: number }> };
    assert.deepEqual(m2.segments.map((g) => g.documents), [200, 1]);
    const shared = path.join('segments', m2.segments[0]!.id, 'vectors.f32');
    assert.equal(fs.statSync(path.join(cli.store, 'snapshots', second.snapshot_id, shared)).ino, fs.statSync(path.join(cli.store, 'snapshots', first.snapshot_id, shared)).ino);
    // The loaded snapshot is identical to one built from scratch of the same files: same documents, same
    // vectors to the bit, same search hits and scores.
    const scratch = makeCli(env);
    scratch.json(['sources', 'add', dir, '--json']);
    const fresh = JSON.parse((await scratch.runAsync(['index', '--yes', '--json'])).stdout) as IndexSummary;
    assert.equal(fresh.embedded_blocks, fresh.blocks, 'a new store has its own cache: everything is embedded again');
    const a = await loadSnapshot(new DataDir(cli.store), second.snapshot_id);
    const b = await loadSnapshot(new DataDir(scratch.store), fresh.snapshot_id);
    assert.equal(JSON.stringify(a.documents.map((d) => d.blocks)), JSON.stringify(b.documents.map((d) => d.blocks)));
    const [ra, rb] = [a.vectors!.globalRows(), b.vectors!.globalRows()];
    for (const k of ['exact', 'codes', 'scales'] as const) assert.ok(Buffer.from(ra[k].buffer).equals(Buffer.from(rb[k].buffer)), k);
    for (const q of ['photosynthesis', 'subject42 details', 'item7 uses']) {
      const qv = Float32Array.from(fakeEmbedding(q, 32));
      assert.deepEqual(hybridSearch(a.bm25, a.vectors, q, qv, 10), hybridSearch(b.bm25, b.vectors, q, qv, 10), q);
    }
  });

  it('two bad files give ready_partial naming both; the rest is searchable', async () => {
    const cli = makeCli(env);
    const dir = notesFolder(3);
    fs.copyFileSync(fixture('bad', 'broken.pdf'), path.join(dir, 'broken.pdf'));
    fs.copyFileSync(fixture('bad', 'latin1.txt'), path.join(dir, 'latin1.txt'));
    cli.json(['sources', 'add', dir, '--json']);
    const s = JSON.parse((await cli.runAsync(['index', '--yes', '--json'])).stdout) as IndexSummary;
    assert.equal(s.state, 'ready_partial');
    assert.equal(s.activated, true);
    assert.deepEqual(s.failed_documents.map((f) => [path.basename(f.path), f.code]), [['broken.pdf', 'corrupt'], ['latin1.txt', 'encoding']]);
    assert.equal(s.documents, 3);
  });

  it('embedding server down: the build fails cleanly and the previous snapshot stays active; activate rolls back', async () => {
    const cli = makeCli(env);
    const dir = notesFolder(4);
    cli.json(['sources', 'add', dir, '--json']);
    const good = JSON.parse((await cli.runAsync(['index', '--yes', '--json'])).stdout) as IndexSummary;
    fs.writeFileSync(path.join(dir, 'note-000.md'), '# Changed\n\nEntirely new words here.\n');
    fs.writeFileSync(path.join(dir, 'note-001.md'), '# Changed too\n\nOther new words there.\n');
    fs.writeFileSync(path.join(dir, 'note-002.md'), '# Changed three\n\nThird new text.\n');
    server.inject('/v1/embeddings', { kind: 'server_error' }, 50);
    const down = await cli.runAsync(['index', '--yes', '--json']);
    server.inject('/v1/embeddings', { kind: 'server_error' }, 0);
    (server as unknown as { faults: Map<string, unknown[]> }).faults.clear();
    assert.equal(down.code, 1);
    assert.match(down.stderr, /embedding endpoint failed for 3 document\(s\).*previous snapshot stays active/);
    const partial = JSON.parse(down.stdout) as IndexSummary;
    assert.equal(partial.state, 'ready_partial', 'the one unchanged note is still indexable from the cache');
    assert.equal(partial.activated, false);
    assert.equal(partial.documents, 1);
    // A changed folder where nothing can be embedded: every document fails → failed, not activated.
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(dir, `note-00${i}.md`), `# New ${i}\n\nFresh text number ${i} again.\n`);
    server.inject('/v1/embeddings', { kind: 'server_error' }, 50);
    const dead = await cli.runAsync(['index', '--yes', '--json']);
    (server as unknown as { faults: Map<string, unknown[]> }).faults.clear();
    assert.equal(dead.code, 1);
    const deadSummary = JSON.parse(dead.stdout) as IndexSummary;
    assert.equal(deadSummary.state, 'failed');
    assert.equal(deadSummary.activated, false);
    assert.ok(deadSummary.failed_documents.every((f) => f.stage === 'embed' && f.code === 'upstream_unavailable'));
    const store = new DataDir(cli.store);
    const active = await loadActiveSnapshot(store);
    assert.notEqual(active?.manifest.id, deadSummary.snapshot_id);

    const list = cli.json<Array<{ id: string; state: string; active: boolean }>>(['snapshots', '--json']);
    assert.deepEqual(list.map((x) => x.state), ['failed', 'ready_partial', 'ready']);
    assert.equal(cli.run(['snapshots', 'activate', deadSummary.snapshot_id]).code, 1);
    const act = cli.run(['snapshots', 'activate', good.snapshot_id]);
    assert.equal(act.code, 0, act.stderr);
    const rolled = await loadActiveSnapshot(store);
    assert.equal(rolled?.manifest.id, good.snapshot_id);
    const texts = rolled!.documents.flatMap((d) => d.blocks.map((b) => b.text));
    assert.ok(texts.some((t) => t.includes('Topic 0 covers subject0')), 'answers come from the old snapshot');
    assert.equal(cli.run(['snapshots', 'delete', good.snapshot_id]).code, 1, 'the active snapshot cannot be deleted');
    assert.equal(cli.run(['snapshots', 'delete', deadSummary.snapshot_id]).code, 0);
    await assert.rejects(loadSnapshot(store, deadSummary.snapshot_id));
  });

  it('keyword-only mode is explicit: recorded in the manifest, no embedding request made', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    cli.json(['sources', 'add', fixture('markdown', 'zh-history.md'), '--json']);
    const before = server.requests.length;
    const s = JSON.parse((await cli.runAsync(['index', '--yes', '--json'])).stdout) as IndexSummary;
    assert.deepEqual(s.embedding, { provider: 'none' });
    assert.equal(server.requests.length, before);
    const snap = await loadActiveSnapshot(new DataDir(cli.store));
    assert.equal(snap?.vectors, null);
    const hits = hybridSearch(snap!.bm25, null, '张骞', null, 5);
    assert.equal(hits.length, 1);
    const plain = cli.run(['index', '--yes'], { DOCQA_EMBEDDING_PROVIDER: 'none' });
    assert.match(plain.stdout, /keyword-only/);
    const missing = cli.run(['index', '--yes'], { DOCQA_EMBEDDING_PROVIDER: '' });
    assert.equal(missing.code, 2);
    // A remote embedding endpoint without a key is refused before any request, naming what to set.
    const nokey = cli.run(['index', '--yes'], { DOCQA_EMBEDDING_PROVIDER: '', DOCQA_EMBEDDING_BASE_URL: 'https://embeddings.example.org/v1', DOCQA_EMBEDDING_MODEL: 'text-embedding-v4' });
    assert.deepEqual([nokey.code, nokey.stderr], [2, 'docqa: no embedding API key: set DOCQA_EMBEDDING_API_KEY to your key for https://embeddings.example.org/v1 (model text-embedding-v4), or DOCQA_EMBEDDING_PROVIDER=none for keyword-only search; nothing was sent\n']);
  });
});
