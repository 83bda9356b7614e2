import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens as libraryCount } from 'gpt-tokenizer/encoding/o200k_base';
import { BpeMerger, packRanks } from '../../src/common/bpe-merger';
import { preTokenize } from '../../src/common/tokenizer';
import { filesUnder, FIXTURES } from '../helpers';

const merger = BpeMerger.fromRanks(o200kRanks);

function units(text: string): Uint16Array {
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** The merger's count of one chunk against the library's count of the same chunk. */
function assertSameCount(chunk: string): void {
  assert.equal(merger.count(units(chunk), 0, chunk.length), libraryCount(chunk), JSON.stringify(chunk.slice(0, 80)));
}

describe('BpeMerger', () => {
  it('rests on well-formed string ranks (a lone surrogate would be looked up as U+FFFD)', () => {
    for (const [rank, token] of o200kRanks.entries()) {
      if (typeof token === 'string' && Buffer.from(token, 'utf8').toString('utf8') !== token) assert.fail(`rank ${rank} is not well-formed`);
    }
  });

  it('counts every pre-tokenizer chunk of every fixture exactly as the library does', () => {
    const chunks = new Set<string>();
    for (const f of filesUnder(FIXTURES).filter((x) => /\.(md|txt)$/.test(x))) for (const c of preTokenize(fs.readFileSync(f, 'utf8'))) chunks.add(c);
    assert.ok(chunks.size > 1000);
    for (const c of chunks) assertSameCount(c);
  });

  it('counts random chunks over many scripts exactly as the library does, ties, byte order marks and lone surrogates included', () => {
    const pools = [
      'abcdefghijklmnopqrstuvwxyz', 'ABCXYZ', '0123456789', ' \t\n\r', ".,;:!?-_/\\'\"()[]{}<>@#$%^&*",
      '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经',
      'ÄÖÜäöüßéèçñ', 'αβγΔΩ', 'абвгдЖЗИ', 'אבגד', 'عربي', 'ひらがなカタカナ', '한국어', '\uFEFF', '\uD83D\uDE00', '\uD83D', '\uDE00',
      '\u0301', '\u200b', '…—“”‘’。，、！？：；（）《》', 'aaaa', '====', '    ',
    ];
    let seed = 7;
    const r = (n: number) => (seed = (seed * 16807) % 2147483647) % n;
    let checked = 0;
    for (let t = 0; t < 4000; t++) {
      let s = '';
      for (let i = 1 + r(40); i > 0; i--) {
        const p = pools[r(pools.length)]!;
        const k = r(p.length);
        s += r(3) === 0 ? p.slice(k, k + 1 + r(8)) : p[k];
      }
      for (const c of preTokenize(s)) {
        assertSameCount(c);
        checked++;
      }
    }
    assert.ok(checked > 20000);
  });

  it('follows the library where it strips a byte order mark before looking a span up', () => {
    // The bytes EF BB BF are a token, but the library decodes spans with a TextDecoder that drops a
    // leading BOM, so it never finds it: two tokens, and the named tokenizer's counts are its counts.
    assert.equal(libraryCount('\uFEFF'), 2);
    assertSameCount('\uFEFF');
    assertSameCount('\uFEFF第一章');
    assertSameCount('\uFEFFA');
  });

  it('counts chunks far longer than its scratch buffers (it grows them) and tokens of every length', () => {
    for (const c of ['甲乙丙丁戊己庚辛壬癸'.repeat(120), 'a'.repeat(3000), '='.repeat(2000), ' '.repeat(1500), 'ab'.repeat(1000)]) assertSameCount(c);
    assertSameCount('short after long');
    assert.equal(merger.count(units('xhello'), 1, 6), libraryCount('hello'), 'a chunk inside a larger text');
  });

  it('refuses a packed table that is not one, is cut short or runs on, naming what is wrong', () => {
    const packed = packRanks(['a', 'b', [0xff], undefined, 'ab']);
    const small = BpeMerger.fromPacked(packed);
    assert.equal(small.count(units('abab'), 0, 4), 2);
    assert.throws(() => BpeMerger.fromPacked(new Uint8Array(3)), /not a token table of version 1/);
    const other = packed.slice();
    other[0] = 0x58;
    assert.throws(() => BpeMerger.fromPacked(other), /not a token table/);
    assert.throws(() => BpeMerger.fromPacked(packed.subarray(0, packed.length - 2)), /corrupt at rank 4|ends at rank/);
    assert.throws(() => BpeMerger.fromPacked(Uint8Array.from([...packed, 1, 1, 0x61])), /3 bytes past its last rank/);
    assert.throws(() => packRanks(['x'.repeat(300)]), /300 bytes long/);
  });
});
