import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { EmbeddingCache, TIER_FANOUT, cacheTier, embeddingKey } from '../../src/index/embed/embedding-cache';

const DIMS = 8;

/** A distinct, exactly representable vector per text. */
function vectorOf(n: number): Float32Array {
  return Float32Array.from({ length: DIMS }, (_, j) => n * 0.5 + j / 8 - 3);
}

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-cache-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A new instance each time, as each build opens the cache afresh. */
const open = () => new EmbeddingCache(root, 'fam', 'model', DIMS);
const segmentFiles = (c: EmbeddingCache) => fs.readdirSync(c.dir).filter((n) => n.startsWith('seg-'));

describe('embedding cache', () => {
  it('returns exactly the vectors put, from a later instance, and nothing for unknown texts', async () => {
    const items = Array.from({ length: 50 }, (_, n) => [embeddingKey(`text ${n}`), vectorOf(n)] as const);
    await open().putAll(items);
    const got = await open().getMany([...items.map(([k]) => k), embeddingKey('never embedded')]);
    assert.equal(got.size, 50);
    for (const [k, v] of items) assert.deepEqual(got.get(k), v);
    // A few among many: read row by row, not the whole segment.
    const few = await open().getMany([items[3]![0], items[41]![0]]);
    assert.equal(few.size, 2);
    for (const n of [3, 41]) assert.deepEqual(few.get(items[n]![0]), items[n]![1]);
  });

  it('reads rows into the buffer the caller gives, batch after batch, most of a segment or a few of it', async () => {
    const items = Array.from({ length: 3000 }, (_, n) => [embeddingKey(`room ${n}`), vectorOf(n)] as const);
    await open().putAll(items.slice(0, 2000));
    await open().putAll(items.slice(2000));
    let room = new Float32Array(0);
    const asked: number[] = [];
    const give = (n: number) => {
      asked.push(n);
      return room.length >= n ? room : (room = new Float32Array(n));
    };
    // Most of both segments (one pass over each), then a few rows of each (row by row), then an unknown key with a known one.
    for (const wanted of [items.slice(100, 2900), [items[5]!, items[2999]!, items[1500]!], [items[7]!]]) {
      const keys = [...wanted.map(([k]) => k), embeddingKey('never put')];
      const got = await open().getMany(keys, give);
      assert.equal(got.size, wanted.length);
      for (const [k, v] of wanted) {
        assert.deepEqual(got.get(k), v);
        assert.equal(got.get(k)!.buffer, room.buffer, 'a view on the given buffer');
      }
    }
    // Asked for room for every wanted key (unknown ones too), and grown only once.
    assert.deepEqual(asked, [2801 * DIMS, 4 * DIMS, 2 * DIMS]);
  });

  it('keys on normalised text: white space and Unicode composition do not matter', () => {
    assert.equal(embeddingKey('  caf\u00e9\n\tau   lait '), embeddingKey('cafe\u0301 au lait'));
    assert.notEqual(embeddingKey('cafe au lait'), embeddingKey('café au lait'));
  });

  it('keeps few segments over many small builds, and loses no vector', async () => {
    // 300 builds that each embed one 11-block file, as one-file edits do.
    let n = 0;
    let most = 0;
    const written = new Map<string, number>();
    for (let build = 0; build < 300; build++) {
      const c = open();
      await c.putAll(Array.from({ length: 11 }, () => [embeddingKey(`block ${n}`), vectorOf(n++)] as const));
      await c.compact();
      const files = segmentFiles(c);
      most = Math.max(most, files.length);
      for (const f of files) if (!written.has(f)) written.set(f, (fs.statSync(path.join(c.dir, f)).size - 16) / (32 + DIMS * 4));
    }
    const c = open();
    // Fewer than TIER_FANOUT segments per size tier: logarithmic in the cache's size.
    const bound = (TIER_FANOUT - 1) * (cacheTier(n) + 1);
    assert.ok(most <= bound, `${most} segments (bound ${bound})`);
    // Each vector is rewritten about once per tier it climbs: 12,375 vectors written here. The policy
    // before (merge the smallest past 8 segments) rewrote one growing segment every few builds: 29,524,
    // growing with the square of the number of builds.
    const total = [...written.values()].reduce((a, b) => a + b, 0);
    assert.ok(total <= n * (cacheTier(n) + 1), `${total} vectors written for ${n}`);
    const all = await c.getMany(Array.from({ length: n }, (_, i) => embeddingKey(`block ${i}`)));
    assert.equal(all.size, n);
    for (let i = 0; i < n; i++) assert.deepEqual(all.get(embeddingKey(`block ${i}`)), vectorOf(i));
  });

  it('merges the segments of a tier once it holds TIER_FANOUT of them', async () => {
    for (let s = 0; s < TIER_FANOUT - 1; s++) await open().putAll([[embeddingKey(`t${s}`), vectorOf(s)]]);
    const c = open();
    await c.compact();
    assert.equal(segmentFiles(c).length, TIER_FANOUT - 1, 'a tier below the fan-out is left alone');
    await c.putAll([[embeddingKey('last'), vectorOf(9)]]);
    await c.compact();
    assert.equal(segmentFiles(c).length, 1);
    assert.equal((await open().getMany([embeddingKey('t0'), embeddingKey('last')])).size, 2);
  });

  it('skips a damaged segment whole and still serves the others', async () => {
    await open().putAll([[embeddingKey('kept'), vectorOf(1)]]);
    const c = open();
    const before = new Set(segmentFiles(c));
    await c.putAll([[embeddingKey('torn'), vectorOf(2)]]);
    // The segment this write added. Not the last name in order: two segments written within the same
    // millisecond order by their random suffix (this test failed so, once in CI).
    const added = segmentFiles(c).filter((n) => !before.has(n));
    assert.equal(added.length, 1);
    const file = path.join(c.dir, added[0]!);
    fs.truncateSync(file, fs.statSync(file).size - 4);
    const got = await open().getMany([embeddingKey('kept'), embeddingKey('torn')]);
    assert.deepEqual([...got.keys()], [embeddingKey('kept')]);
  });

  it('still reads segments of format 1 ([key][vector] records)', async () => {
    const c = open();
    fs.mkdirSync(c.dir, { recursive: true });
    const keys = ['b', 'a'].map((t) => embeddingKey(t));
    const rec = Buffer.alloc(2 * (32 + DIMS * 4));
    keys.forEach((k, i) => {
      rec.write(k, i * (32 + DIMS * 4), 'hex');
      vectorOf(i).forEach((x, j) => rec.writeFloatLE(x, i * (32 + DIMS * 4) + 32 + j * 4));
    });
    fs.writeFileSync(path.join(c.dir, 'seg-old.bin'), rec);
    const got = await c.getMany(keys);
    keys.forEach((k, i) => assert.deepEqual(got.get(k), vectorOf(i)));
  });

  it('finds a few keys of a large segment exactly, wherever they sit, and absent ones not at all', async () => {
    const n = 20_000;
    const items = Array.from({ length: n }, (_, i) => [embeddingKey(`big ${i}`), vectorOf(i % 1000)] as const);
    await open().putAll(items);
    const sorted = items.map(([k]) => k).sort();
    // The smallest and largest keys (windows at the block's ends), some in between, and some never put.
    const present = [sorted[0]!, sorted[n - 1]!, sorted[1]!, sorted[n - 2]!, sorted[n >> 1]!, items[777]![0]];
    const absent = ['0'.repeat(64), 'f'.repeat(64), embeddingKey('never'), `${sorted[5]!.slice(0, 63)}${sorted[5]!.endsWith('0') ? '1' : '0'}`];
    const got = await open().getMany([...present, ...absent]);
    assert.deepEqual([...got.keys()].sort(), [...present].sort());
    const byKey = new Map(items);
    for (const k of present) assert.deepEqual(got.get(k), byKey.get(k));
  });

  it('still finds keys that are not spread evenly (the window misses, the whole key block is read)', async () => {
    // Keys sharing their first bytes are nowhere near where even spreading would put them.
    const items = Array.from({ length: 10_000 }, (_, i) => [`0000${embeddingKey(`skewed ${i}`).slice(4)}`, vectorOf(i % 500)] as const);
    await open().putAll([...items, [embeddingKey('spread'), vectorOf(3)]]);
    const wanted = [items[9]![0], items[5000]![0], items[9999]![0], embeddingKey('spread')];
    const got = await open().getMany([...wanted, `0000${embeddingKey('absent').slice(4)}`]);
    assert.deepEqual([...got.keys()].sort(), [...wanted].sort());
    assert.deepEqual(got.get(items[5000]![0]), items[5000]![1]);
  });

  it('merges segments it reads from their files window by window, keeping every vector once', async () => {
    // Four segments of 700 from four builds: the merging instance holds none of them.
    const items = Array.from({ length: 2800 }, (_, i) => [embeddingKey(`merge ${i}`), vectorOf(i)] as const);
    const late = open();
    await late.getMany([]);
    for (let s = 0; s < 4; s++) await open().putAll(items.slice(s * 700, (s + 1) * 700));
    // A build that listed the segments before those were written adds one of the same keys again.
    await late.putAll([items[1234]!]);
    assert.equal(segmentFiles(late).length, 5);
    const c = open();
    await c.compact();
    assert.equal(segmentFiles(c).length, 1, 'the four of one tier merged, with the smaller one');
    const file = path.join(c.dir, segmentFiles(c)[0]!);
    assert.equal(fs.statSync(file).size, 16 + 2800 * (32 + DIMS * 4), 'no key twice in the merged segment');
    const all = await open().getMany(items.map(([k]) => k));
    assert.equal(all.size, 2800);
    for (const [k, v] of items) assert.deepEqual(all.get(k), v);
  });
});
