import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpareBuffers, headOf, serializeDocument } from '../../src/index/ingest/serialized-document';
import { fixture, ingestOk } from '../helpers';

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe('documents serialised where they were parsed', () => {
  it('are their JSON line as UTF-8 and the head a build keeps, Chinese text included', async () => {
    for (const file of [fixture('markdown', 'cell-notes.md'), fixture('markdown', 'zh-history.md')]) {
      const doc = await ingestOk(file);
      const s = serializeDocument(doc);
      assert.equal(decode(s.json), `${JSON.stringify(doc)}\n`);
      assert.deepEqual(s.head, headOf(doc));
      assert.equal(s.head.blocks, doc.blocks.length);
      assert.equal(s.head.tokens, doc.blocks.reduce((n, b) => n + b.token_count, 0));
      // A buffer of its own: what is transferred is the line, nothing else.
      assert.equal(s.json.buffer.byteLength, s.json.byteLength);
    }
  });

  it('go into a buffer given back when it holds them, the largest first, and into a new one when none does', async () => {
    const small = await ingestOk(fixture('markdown', 'zh-history.md'));
    const large = await ingestOk(fixture('markdown', 'cell-notes.md'));
    assert.ok(Buffer.byteLength(JSON.stringify(small)) < Buffer.byteLength(JSON.stringify(large)));
    const lineOf = (d: typeof small) => `${JSON.stringify(d)}\n`;
    const spares = new SpareBuffers();
    const first = serializeDocument(large, spares);
    const big = first.json.buffer;
    spares.give(new ArrayBuffer(8));
    spares.give(big);
    // The small (Chinese) document goes into the large one's buffer, its bytes exactly.
    const reused = serializeDocument(small, spares);
    assert.equal(reused.json.buffer, big);
    assert.equal(reused.json.byteOffset, 0);
    assert.equal(decode(reused.json), lineOf(small));
    // Only the 8-byte buffer is left: too small, so a new buffer of the line's size.
    const fresh = serializeDocument(large, spares);
    assert.notEqual(fresh.json.buffer, big);
    assert.equal(fresh.json.buffer.byteLength, Buffer.byteLength(lineOf(large)));
    assert.equal(decode(fresh.json), lineOf(large));
    assert.equal(spares.size, 1);
    // At most four kept, the smallest dropped.
    for (const n of [16, 64, 32, 128, 256]) spares.give(new ArrayBuffer(n));
    assert.equal(spares.size, 4);
    const next = new SpareBuffers();
    for (const n of [16, 64, 32, 128, 256]) next.give(new ArrayBuffer(n));
    assert.equal(next.encode('x'.repeat(200)).buffer.byteLength, 256);
    assert.equal(next.encode('x'.repeat(100)).buffer.byteLength, 128);
  });
});
