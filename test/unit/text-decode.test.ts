import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IngestError } from '../../src/index/errors';
import { decodeText } from '../../src/index/text-decode';

const bytes = (...b: number[]) => new Uint8Array(b);

describe('decodeText', () => {
  it('reads UTF-8 with and without BOM', () => {
    assert.deepEqual(decodeText(new TextEncoder().encode('héllo 你好')), { text: 'héllo 你好', encoding: 'utf-8' });
    assert.deepEqual(decodeText(bytes(0xef, 0xbb, 0xbf, 0x68, 0x69)), { text: 'hi', encoding: 'utf-8-bom' });
  });
  it('reads UTF-16 with a BOM in both byte orders', () => {
    assert.deepEqual(decodeText(bytes(0xff, 0xfe, 0x60, 0x4f, 0x7d, 0x59)), { text: '你好', encoding: 'utf-16le' });
    assert.deepEqual(decodeText(bytes(0xfe, 0xff, 0x4f, 0x60, 0x59, 0x7d)), { text: '你好', encoding: 'utf-16be' });
  });
  it('reads GBK/GB18030 Chinese', () => {
    // 你好，世界 in GBK
    assert.deepEqual(decodeText(bytes(0xc4, 0xe3, 0xba, 0xc3, 0xa3, 0xac, 0xca, 0xc0, 0xbd, 0xe7)), { text: '你好，世界', encoding: 'gb18030' });
  });
  it('rejects bytes that are none of these, and binary data', () => {
    const enc = (() => {
      try {
        decodeText(bytes(0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b, 0xff));
      } catch (e) {
        return e;
      }
    })();
    assert.ok(enc instanceof IngestError && enc.code === 'encoding' && enc.stage === 'decode');
    assert.throws(() => decodeText(bytes(0x50, 0x4b, 0x00, 0x01)), (e: unknown) => e instanceof IngestError && e.code === 'binary');
    // A UTF-8 BOM in front of invalid UTF-8 is an encoding error, not a guess.
    assert.throws(() => decodeText(bytes(0xef, 0xbb, 0xbf, 0xff)), (e: unknown) => e instanceof IngestError && e.code === 'encoding');
  });
});
