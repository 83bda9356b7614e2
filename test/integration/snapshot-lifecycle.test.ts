import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { applyRetention, buildSnapshot } from '../../src/index/store/build-snapshot';
import { DataDir } from '../../src/common/data-dir';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { PauseGate } from '../../src/index/ingest/pause-gate';
import { isPinned, pinSnapshot } from '../../src/index/store/snapshot-pins';
import { SnapshotLru } from '../../src/index/store/snapshot-lru';
import { deleteSnapshot, listSnapshots, readActiveId } from '../../src/index/store/snapshot-store';
import { addSources } from '../../src/index/sources/sources';
import { openSnapshotHandle } from '../../src/tools/snapshot-handle';
import { tempDir } from '../helpers';

async function setup() {
  const notes = tempDir('docqa-life-');
  fs.writeFileSync(path.join(notes, 'a.md'), '# A\n\nFirst version.\n');
  const dir = new DataDir(tempDir());
  await addSources(dir, [notes]);
  const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, null);
  let n = 0;
  const build = async (keep = 1) => {
    fs.writeFileSync(path.join(notes, 'a.md'), `# A\n\nVersion ${++n}.\n`);
    return (await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool, retention: { keep, keepDays: null } })).manifest.id;
  };
  return { dir, build };
}

describe('snapshot lifecycle', () => {
  it('retention keeps the newest, never the active one or one pinned by a running request; dead pins do not count', async () => {
    const { dir, build } = await setup();
    const s1 = await build();
    const release = await pinSnapshot(dir, s1);
    const s2 = await build();
    const s3 = await build();
    const s4 = await build();
    const ids = (await listSnapshots(dir)).map((m) => m.id);
    assert.equal(await readActiveId(dir), s4);
    assert.deepEqual(ids, [s4, s3, s1], 'keep=1 besides the active one; s2 deleted; pinned s1 kept');
    assert.ok(!ids.includes(s2));
    await assert.rejects(deleteSnapshot(dir, s1), /being read by a running request/);
    await release();
    assert.equal(await isPinned(dir, s1), false);
    // A pin left by a process that no longer exists does not protect anything.
    fs.mkdirSync(path.join(dir.root, 'pins', s3), { recursive: true });
    fs.writeFileSync(path.join(dir.root, 'pins', s3, '999999-dead'), JSON.stringify({ pid: 999999, host: os.hostname() }));
    assert.equal(await isPinned(dir, s3), false);
    await build();
    assert.equal((await listSnapshots(dir)).length, 2);
  });

  it('the doc_id registry changes only with a build that finishes: one cancelled after ingestion leaves it as it was', async () => {
    const { dir, build } = await setup();
    await build(5);
    const registry = fs.readFileSync(dir.documentsFile, 'utf8');
    // A new file: the registry gains an entry, but only when the snapshot holding it is committed.
    const notes = JSON.parse(fs.readFileSync(dir.sourcesFile, 'utf8')).sources[0].path as string;
    fs.writeFileSync(path.join(notes, 'b.md'), '# B\n\nNew.\n');
    const ac = new AbortController();
    const cancelled = buildSnapshot(dir, {
      ingest: DEFAULT_INGEST_OPTIONS,
      embedding: { provider: 'none' },
      embeddingApiKey: '',
      signal: ac.signal,
      onProgress: (p) => {
        if (p.stage === 'index') ac.abort();
      },
    });
    await assert.rejects(cancelled, (e: unknown) => (e as Error).name === 'AbortError');
    assert.equal(fs.readFileSync(dir.documentsFile, 'utf8'), registry);
    await build(5);
    assert.notEqual(fs.readFileSync(dir.documentsFile, 'utf8'), registry);
    assert.ok(fs.readFileSync(dir.documentsFile, 'utf8').includes(path.join(notes, 'b.md')));
  });

  it('a snapshot whose deletion was interrupted is never listed, and the next build removes it', async () => {
    const { dir, build } = await setup();
    const old = await build(5);
    await build(5);
    // What a crash in the middle of retention or `snapshots delete` leaves: the renamed, partly emptied folder.
    fs.renameSync(dir.snapshotDir(old), path.join(dir.snapshotsDir, `${old}.deleting`));
    assert.ok(!(await listSnapshots(dir)).some((m) => m.id === old));
    await build(5);
    assert.ok(!fs.readdirSync(dir.snapshotsDir).some((n) => n.startsWith(old)));
  });

  it('an age rule keeps young snapshots beyond the count; old ones beyond both go', async () => {
    const { dir, build } = await setup();
    const ids = [await build(10), await build(10), await build(10), await build(10)];
    assert.deepEqual(await applyRetention(dir, { keep: 1, keepDays: 7 }), [], 'all younger than a week');
    const inTenDays = new Date(Date.now() + 10 * 86_400_000);
    const deleted = await applyRetention(dir, { keep: 1, keepDays: 7 }, inTenDays);
    assert.deepEqual(deleted.sort(), [ids[0], ids[1]].sort(), 'active (newest) kept, next newest kept by count');
  });

  it('keeps a few open snapshots in memory, least recently used out first, one load per id', async () => {
    const { dir, build } = await setup();
    const a = await build(5);
    const b = await build(5);
    const c = await build(5);
    const lru = new SnapshotLru(dir, 2);
    const first = await lru.get(a);
    assert.equal(await lru.get(a), first, 'the same loaded object');
    await lru.get(b);
    await lru.get(a);
    await lru.get(c);
    assert.deepEqual(lru.ids(), [a, c], 'b was least recently used');
    await assert.rejects(lru.get('s-nope'), /no snapshot/);
    assert.deepEqual(lru.ids(), [a, c], 'a failed load is not kept');
  });
});

describe('background build control', () => {
  it('pauses between documents, reports progress, resumes; cancelling leaves the active snapshot alone', async () => {
    const notes = tempDir('docqa-pause-');
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), `# N${i}\n\nText ${i}.\n`);
    const dir = new DataDir(tempDir());
    await addSources(dir, [notes]);
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, null);
    const gate = new PauseGate();
    const events: string[] = [];
    let pausedAt = -1;
    const building = buildSnapshot(dir, {
      ingest: DEFAULT_INGEST_OPTIONS,
      embedding: { provider: 'none' },
      embeddingApiKey: '',
      pool,
      gate,
      onProgress: (p) => {
        events.push(`${p.stage}:${p.done}/${p.total}`);
        if (p.stage === 'ingest' && p.done === 5 && pausedAt < 0) {
          gate.pause();
          pausedAt = events.length;
        }
      },
    });
    await new Promise((r) => setTimeout(r, 150));
    const whilePaused = events.length;
    assert.ok(gate.paused);
    assert.ok(whilePaused - pausedAt <= 2, `at most the in-flight document finished while paused (${whilePaused - pausedAt} events)`);
    gate.resume();
    const { manifest } = await building;
    assert.equal(manifest.stats.documents, 30);
    assert.ok(events.includes('ingest:30/30') && events.includes('index:0/1') && events.includes('write:0/1'));

    // Cancel a second build while it is paused: nothing changes on disk but the leftovers are swept.
    fs.writeFileSync(path.join(notes, 'n0.md'), '# N0\n\nChanged.\n');
    const registry = fs.readFileSync(dir.documentsFile, 'utf8');
    const ac = new AbortController();
    gate.pause();
    const second = buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool, gate, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await assert.rejects(second, (e: unknown) => (e as Error).name === 'AbortError');
    gate.resume();
    assert.equal(await readActiveId(dir), manifest.id);
    assert.deepEqual(fs.readdirSync(dir.snapshotsDir), [manifest.id]);
    assert.equal(fs.readFileSync(dir.documentsFile, 'utf8'), registry, 'the registry changes only with a finished build');
  });
});

describe('snapshot handles for requests', () => {
  it('a request keeps reading its snapshot while another is activated, and it cannot be deleted until released', async () => {
    const { dir, build } = await setup();
    const first = await build(0);
    const lru = new SnapshotLru(dir, 2);
    const handle = (await openSnapshotHandle(dir, lru))!;
    assert.equal(handle.id, first);
    const second = await build(0);
    assert.equal(await readActiveId(dir), second);
    assert.equal(handle.snapshot.manifest.id, first);
    assert.ok(handle.snapshot.documents[0]!.blocks[0]!.text.includes('Version 1'));
    assert.ok((await listSnapshots(dir)).some((m) => m.id === first), 'retention (keep 0) spared the pinned snapshot');
    await assert.rejects(deleteSnapshot(dir, first), /running request/);
    await handle.release();
    await deleteSnapshot(dir, first);
    // Still in the LRU, but its files are gone (postings and float32 rows are read on demand): asked for
    // again, it is reported as not found rather than served half-readable.
    assert.ok(lru.ids().includes(first));
    await assert.rejects(openSnapshotHandle(dir, lru, first), /no snapshot/);
    assert.equal(await openSnapshotHandle(new DataDir(tempDir()), lru), null, 'no snapshot: null, the tools answer collection_unavailable');
  });
});
