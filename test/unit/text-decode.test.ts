import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IngestError } from '../../src/common/errors';
import { decodeText } from '../../src/index/sources/text-decode';

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
  it('reads Big5 Traditional Chinese, and never takes GBK text for Big5 or Big5 text for GBK', () => {
    // 學習筆記：先讀課本。 in Big5, and 学习笔记：先读课本。 in GBK
    const big5 = bytes(0xbe, 0xc7, 0xb2, 0xdf, 0xb5, 0xa7, 0xb0, 0x4f, 0xa1, 0x47, 0xa5, 0xfd, 0xc5, 0xaa, 0xbd, 0xd2, 0xa5, 0xbb, 0xa1, 0x43);
    assert.deepEqual(decodeText(big5), { text: '學習筆記：先讀課本。', encoding: 'big5' });
    const gbk = bytes(0xd1, 0xa7, 0xcf, 0xb0, 0xb1, 0xca, 0xbc, 0xc7, 0xa3, 0xba, 0xcf, 0xc8, 0xb6, 0xc1, 0xbf, 0xce, 0xb1, 0xbe, 0xa1, 0xa3);
    assert.deepEqual(decodeText(gbk), { text: '学习笔记：先读课本。', encoding: 'gb18030' });
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
