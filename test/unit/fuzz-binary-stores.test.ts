import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { StoreError } from '../../src/common/errors';
import { EmbeddingCache } from '../../src/index/embed/embedding-cache';
import { PACK_FORMAT_VERSION, encodePack, readPack } from '../../src/index/store/binary-pack';
import { readSegmentKeyword } from '../../src/index/store/segment-store';
import { FileRows, readCodes, readSegmentDocuments2, readSegmentKeyword2 } from '../../src/index/store/segment-reader';
import { SegmentWriter } from '../../src/index/store/segment-writer';
import { SEGMENT_FILES_2 } from '../../src/index/store/segment-format';
import { StagedFolder } from '../../src/index/store/staged-folder';
import { buildBm25 } from '../../src/index/search/bm25-build';
import { Slicer } from '../../src/common/slicer';
import type { Document } from '../../src/shared/document';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { assertPrototypesClean, damagedBytes, hostileKey, runs, trialsOf } from '../fuzz';

/**
 * Property tests of the binary readers (issue 24 item 6): the pack file (`DQPK`, the keyword index of
 * every segment) and the embedding cache's segments (`DQEC`). A damaged pack is a StoreError with a
 * documented code; a damaged cache segment is skipped (entries are only a cache) and never gives a
 * vector of the wrong size. Written packs read back as written.
 */
const CODES = new Set(['store_corrupt', 'store_future_version']);
const folder = tempDir('docqa-fuzz-pack-');
const file = path.join(folder, 'keyword.pack');

async function packOutcome(read: () => Promise<unknown>): Promise<string | null> {
  try {
    await read();
    return null;
  } catch (err) {
    assert.ok(err instanceof StoreError, `threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    assert.ok(CODES.has(err.code), err.code);
    return err.code;
  }
}

const arrays = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__'),
  fc.oneof(
    fc.array(fc.nat(), { maxLength: 20 }).map((a) => Uint32Array.from(a)),
    fc.array(fc.nat(0xffff), { maxLength: 20 }).map((a) => Uint16Array.from(a)),
    fc.array(fc.float({ noNaN: true }), { maxLength: 20 }).map((a) => Float32Array.from(a)),
    fc.array(fc.nat(0xff), { maxLength: 20 }).map((a) => Uint8Array.from(a)),
    fc.array(fc.double({ noNaN: true }), { maxLength: 20 }).map((a) => Float64Array.from(a)),
  ),
  { maxKeys: 5 },
);

/** A keyword pack as a segment writes it, to damage. */
const VALID = encodePack({}, { termChars: Uint16Array.from([97, 98]), termStarts: Uint32Array.from([0, 1, 2]), offsets: Uint32Array.from([0, 1, 2]), blocks: Uint32Array.from([0, 0]), tfs: Uint16Array.from([1, 1]), headTfs: Uint16Array.from([0, 0]), docLengths: Uint32Array.from([2]), headLengths: Uint32Array.from([0]) });

/** A pack whose JSON header is `header` (any text): what a damaged or hostile file can hold. */
function withHeader(header: string, body = Buffer.alloc(64)): Buffer {
  const h = Buffer.from(header, 'utf8');
  const head = Buffer.alloc(Math.ceil((8 + h.length) / 8) * 8);
  head.write('DQPK', 0, 'latin1');
  head.writeUInt32LE(h.length, 4);
  h.copy(head, 8);
  return Buffer.concat([head, body]);
}

describe('fuzz: binary readers', () => {
  after(assertPrototypesClean);

  it('pack round trip: any named typed arrays read back equal', async () => {
    await fc.assert(
      fc.asyncProperty(arrays, fc.jsonValue({ maxDepth: 2 }), async (a, meta) => {
        fs.writeFileSync(file, encodePack(meta, a));
        const r = await readPack(file);
        assert.equal(r.formatVersion, PACK_FORMAT_VERSION);
        assert.deepEqual(r.meta, JSON.parse(JSON.stringify(meta)));
        assert.deepEqual(Object.keys(r.arrays).sort(), Object.keys(a).sort());
        for (const [k, v] of Object.entries(a)) assert.deepEqual(r.arrays[k], v);
      }),
      runs(300),
    );
    recordTrials({ area: 'fuzzing', fault: 'pack file: round trip of random typed arrays', trials: trialsOf(300), outcome: 'read back as written' }, __filename);
  });

  it('a keyword pack truncated, flipped or random is store_corrupt (or still valid), for readPack and readSegmentKeyword', async () => {
    await fc.assert(
      fc.asyncProperty(damagedBytes(VALID), async (bytes) => {
        fs.writeFileSync(file, bytes);
        await packOutcome(() => readPack(file));
        await packOutcome(() => readSegmentKeyword(folder));
      }),
      runs(400),
    );
    recordTrials({ area: 'fuzzing', fault: 'keyword pack: truncated, flipped and random bytes', trials: trialsOf(400), outcome: 'documented error store_corrupt or a valid read; no crash' }, __filename);
  });

  it('a hostile pack header (not an object, sections of any shape, __proto__ names, future version) is a documented error', async () => {
    const num = fc.oneof(fc.integer({ min: -10, max: 1000 }), fc.constantFrom(1.5, -0.5, 1e300, 2 ** 40), fc.constant('8'), fc.constant(null));
    const section = fc.record({ name: hostileKey, type: fc.oneof(fc.constantFrom('u32', 'u16', 'f32', 'constructor', '__proto__', 'toString', 'f64', ''), fc.constant(null)), offset: num, length: num });
    const header = fc.oneof(
      fc.constantFrom('null', '1', '"x"', '[]', '{}', '{"formatVersion":1}', '{"formatVersion":"3","sections":[]}', '{"formatVersion":1,"sections":{}}', '{"formatVersion":1,"sections":null}'),
      fc.record({ formatVersion: fc.oneof(fc.integer({ min: 0, max: PACK_FORMAT_VERSION + 5 }), fc.constant(Number.POSITIVE_INFINITY)), sections: fc.array(section, { maxLength: 4 }) }).map((h) => JSON.stringify(h)),
    );
    await fc.assert(
      // Section names come from hostileKey: `__proto__` and `constructor` among them.
      fc.asyncProperty(header, async (text) => {
        fs.writeFileSync(file, withHeader(text));
        const code = await packOutcome(() => readPack(file));
        const version = (JSON.parse(text) as { formatVersion?: unknown } | null)?.formatVersion;
        if (typeof version === 'number' && version > PACK_FORMAT_VERSION) assert.equal(code, 'store_future_version');
        if (code === null) {
          const r = await readPack(file);
          for (const a of Object.values(r.arrays)) assert.ok(a instanceof Uint32Array || a instanceof Uint16Array || a instanceof Uint8Array || a instanceof Float32Array || a instanceof Float64Array);
          assert.equal(Object.getPrototypeOf(r.arrays), Object.prototype);
        }
        assertPrototypesClean();
      }),
      runs(600),
    );
    recordTrials({ area: 'fuzzing', fault: 'pack file: hostile headers (__proto__ section names, odd offsets, future version)', trials: trialsOf(600), outcome: 'documented error store_corrupt/store_future_version; no crash' }, __filename);
  });

  it('a format-2 segment with any one file truncated, flipped or random reads or is a documented error, for every reader', async () => {
    const seg = path.join(tempDir('docqa-fuzz-seg-'), 'seg');
    const staged = new StagedFolder(path.dirname(seg));
    const texts = ['Photosynthesis turns light into chemical energy.', '光合作用把光能转化为化学能。', 'The membrane controls what enters the cell.'];
    const doc: Document = {
      doc_id: 'd1', path: '/n.md', title: 'Notes', source_label: 's', aliases: [], lang: 'mixed', format: 'markdown', content_hash: 'h', byte_size: 9, encoding: 'utf-8', page_count: null,
      sections: [{ path: 'Notes', title: 'Notes', ordinal: 1, depth: 1, parent_path: null, direct_blocks: 3, subtree_blocks: 3, direct_tokens: 30, subtree_tokens: 30, first_sentence: '', location: null }],
      blocks: texts.map((text, i) => ({ block_id: `b${i}`, block_index: i, section_path: 'Notes', text, token_count: 10, location: i === 2 ? { kind: 'page' as const, page: 3 } : { kind: 'lines' as const, line_start: i + 1, line_end: i + 2 } })),
    };
    const w = await SegmentWriter.create(staged, seg, `${seg}.scratch`, 3, 4);
    await w.add([doc], Float32Array.from({ length: 12 }, (_, i) => (i % 5) / 5), buildBm25(texts, ['Notes', 'Notes', 'Notes']));
    await w.finish();
    const names = Object.values(SEGMENT_FILES_2);
    const originals = new Map(names.map((n) => [n, fs.readFileSync(path.join(seg, n))]));
    const readAll = async () => {
      JSON.stringify((await readSegmentDocuments2(seg, 3, new Slicer())).documents);
      const k = await readSegmentKeyword2(seg, 3);
      for (let t = 0; t < k.terms.length; t++) k.postings(t);
      await readCodes(seg, 3, 4, 0, 3);
      new FileRows(path.join(seg, SEGMENT_FILES_2.vectors), 4, 3, 0).read([0, 1, 2], () => undefined);
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), fc.nat(), async (name, pick) => {
        const bytes = fc.sample(damagedBytes(originals.get(name)!), { numRuns: 1, seed: pick })[0]!;
        fs.writeFileSync(path.join(seg, name), bytes);
        try {
          await packOutcome(readAll);
        } finally {
          fs.writeFileSync(path.join(seg, name), originals.get(name)!);
        }
      }),
      runs(400),
    );
    recordTrials({ area: 'fuzzing', fault: 'format-2 segment: one file truncated, flipped or random', trials: trialsOf(400), outcome: 'documented error store_corrupt/store_future_version or a valid read; no crash' }, __filename);
  });

  it('embedding cache: damaged segments and meta.json are skipped, never a crash or a vector of the wrong size', async () => {
    const root = tempDir('docqa-fuzz-cache-');
    const vec = (i: number) => Float32Array.from({ length: 4 }, (_, j) => i + j / 10);
    const keys = ['a', 'b', 'c'].map((k) => k.repeat(64));
    const seeded = new EmbeddingCache(root, 'fam', 'model', null);
    await seeded.putAll(keys.map((k, i) => [k, vec(i)] as const));
    const cacheDir = seeded.dir;
    const seg = fs.readdirSync(cacheDir).find((n) => n.startsWith('seg-'))!;
    const segBytes = fs.readFileSync(path.join(cacheDir, seg));
    const metaBytes = fs.readFileSync(path.join(cacheDir, 'meta.json'));
    await fc.assert(
      fc.asyncProperty(damagedBytes(segBytes), damagedBytes(metaBytes), fc.boolean(), async (s, m, damageMeta) => {
        fs.writeFileSync(path.join(cacheDir, seg), s);
        fs.writeFileSync(path.join(cacheDir, 'meta.json'), damageMeta ? m : metaBytes);
        const cache = new EmbeddingCache(root, 'fam', 'model', null);
        let got: Map<string, Float32Array>;
        try {
          got = await cache.getMany(keys);
        } catch (err) {
          assert.ok(err instanceof StoreError, `threw ${String(err)}`);
          return;
        }
        for (const v of got.values()) assert.equal(v.length, cache.dims, 'a cached vector has the cache’s dimensions');
      }),
      runs(300),
    );
    recordTrials({ area: 'fuzzing', fault: 'embedding cache: damaged segments and meta.json', trials: trialsOf(300), outcome: 'damaged segments skipped; vectors always of the cache’s size; no crash' }, __filename);
  });
});
