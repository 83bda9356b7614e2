import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readPack, writePack } from '../../src/index/store/binary-pack';
import { StoreError } from '../../src/common/errors';
import { tempDir } from '../helpers';

describe('binary pack files', () => {
  it('round-trips named typed arrays and metadata', async () => {
    const file = path.join(tempDir(), 'x.pack');
    await writePack(file, { terms: ['a', '光合'] }, { a: Uint32Array.of(1, 2, 3), b: Uint16Array.of(7), c: Float32Array.of(0.5, -1.25) });
    const r = await readPack(file);
    assert.deepEqual(r.meta, { terms: ['a', '光合'] });
    assert.deepEqual(Array.from(r.arrays.a!), [1, 2, 3]);
    assert.deepEqual(Array.from(r.arrays.b!), [7]);
    assert.deepEqual(Array.from(r.arrays.c!), [0.5, -1.25]);
  });
  it('rejects a truncated file and a file that is not a pack, naming it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'x.pack');
    await writePack(file, {}, { a: new Uint32Array(1000) });
    fs.truncateSync(file, fs.statSync(file).size - 100);
    await assert.rejects(readPack(file), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt' && /truncated/.test(e.message));
    fs.writeFileSync(file, 'hello world');
    await assert.rejects(readPack(file), (e: unknown) => e instanceof StoreError && /not a DocQA pack file/.test(e.message) && e.message.includes(file));
  });

  it('a header that is not an object, lacks its sections, names a section __proto__ or misaligns it is store_corrupt, not a TypeError (found by fuzzing)', async () => {
    const file = path.join(tempDir(), 'h.pack');
    const withHeader = (header: string) => {
      const h = Buffer.from(header);
      const head = Buffer.alloc(Math.ceil((8 + h.length) / 8) * 8);
      head.write('DQPK', 0, 'latin1');
      head.writeUInt32LE(h.length, 4);
      h.copy(head, 8);
      fs.writeFileSync(file, Buffer.concat([head, Buffer.alloc(64)]));
    };
    for (const header of ['null', '{"formatVersion":3,"meta":{},"tections":[]}', '{"formatVersion":3,"sections":[{"name":"a","type":"constructor","offset":0,"length":1}]}', '{"formatVersion":3,"sections":[{"name":"a","type":"u32","offset":2,"length":1}]}', '{"formatVersion":3,"sections":[{"name":"a","type":"u32","offset":0,"length":-1}]}']) {
      withHeader(header);
      await assert.rejects(readPack(file), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt', header);
    }
    withHeader('{"formatVersion":3,"meta":null,"sections":[{"name":"__proto__","type":"u32","offset":0,"length":2}]}');
    const r = await readPack(file);
    assert.equal(Object.getPrototypeOf(r.arrays), Object.prototype);
    assert.ok(Object.hasOwn(r.arrays, '__proto__') && r.arrays.__proto__ instanceof Uint32Array);
    withHeader('{"formatVersion":99,"sections":"anything"}');
    await assert.rejects(readPack(file), (e: unknown) => e instanceof StoreError && e.code === 'store_future_version');
  });
});
