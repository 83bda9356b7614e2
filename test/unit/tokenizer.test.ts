import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { countTokens as libraryCount } from 'gpt-tokenizer/encoding/o200k_base';
import { CLASS_PATTERNS, fillClassTable, countJoined, countTokens, countWithTail, preTokenize } from '../../src/common/tokenizer';
import { filesUnder, FIXTURES } from '../helpers';

describe('countTokens', () => {
  it('equals the library’s whole-string o200k count on every Markdown and text fixture, paragraph by paragraph', () => {
    const texts = filesUnder(path.join(FIXTURES, 'markdown')).map((f) => fs.readFileSync(f, 'utf8').replace(/^\uFEFF/, ''));
    texts.push('  leading spaces,\ttabs\r\nand CRLF  \n\n\n trailing   ', '数字 12345678 和 emoji 👩‍👩‍👧 以及 ｆｕｌｌｗｉｄｔｈ');
    let checked = 0;
    for (const t of texts) {
      for (const piece of [t, ...t.split(/\n\n+/)]) {
        assert.equal(countTokens(piece), libraryCount(piece), JSON.stringify(piece.slice(0, 80)));
        checked++;
      }
    }
    assert.ok(checked > 100);
  });

  it('counts a document that mentions special tokens such as <|endoftext|> instead of throwing', () => {
    assert.throws(() => libraryCount('a <|endoftext|> b'), /special token/i);
    assert.ok(countTokens('The GPT-2 separator is <|endoftext|> in the vocabulary.') > 5);
  });

  it('counts a join of two trimmed texts exactly from their parts', () => {
    const paras = filesUnder(path.join(FIXTURES, 'markdown'))
      .flatMap((f) => fs.readFileSync(f, 'utf8').split(/\n\n+/))
      .map((p) => p.trim())
      .filter(Boolean);
    paras.push('Ends with a dot.', '---', '1234', '你好。', '...', 'a/', '`code`', '> quote', '| t |', '- item', '/abc def', '//x', "'s good", '}', '/', '/ /', '—', 'x');
    let checked = 0;
    for (let i = 0; i + 1 < paras.length; i++) {
      for (const j of [i + 1, (i * 7) % paras.length]) {
        const a = paras[i]!;
        const b = paras[j]!;
        for (const sep of ['\n\n', '\n']) {
          assert.equal(countJoined(countWithTail(a), sep, countWithTail(b)).tokens, countTokens(a + sep + b), JSON.stringify([a.slice(-30), sep, b.slice(0, 30)]));
          checked++;
        }
      }
    }
    assert.ok(checked > 500);
  });

  it('chains joins exactly (the way a block grows), also through one-chunk and look-alike parts', () => {
    const parts = ['--a--', '}', '//x', 'Intro.', '---', '/abc def', '你好。', 'x', '...', '- item'];
    for (let start = 0; start < parts.length; start++) {
      let acc = countWithTail(parts[start]!);
      let text = parts[start]!;
      for (let k = 1; k < parts.length; k++) {
        const next = parts[(start + k) % parts.length]!;
        acc = countJoined(acc, '\n\n', countWithTail(next));
        text = `${text}\n\n${next}`;
        assert.equal(acc.tokens, countTokens(text), JSON.stringify(text));
        assert.deepEqual(acc, countWithTail(text));
      }
    }
  });
  it('stays exact past its cache limit (it starts over), for chunks too long to keep, and for texts larger than its scratch buffer', () => {
    // 150,000 distinct words: more than the cache keeps, so it fills, starts over and fills again.
    const words = Array.from({ length: 150_000 }, (_, i) => ` w${i.toString(36)}q`);
    for (let i = 0; i < words.length; i += 5000) {
      const piece = words.slice(i, i + 5000).join('');
      assert.equal(countTokens(piece), libraryCount(piece), `words ${i}…`);
    }
    const again = words.slice(0, 5000).join('');
    assert.equal(countTokens(again), libraryCount(again), 'the first words, after the cache started over');
    const long = `${'abcdefghij'.repeat(20)} ${'甲乙丙丁戊'.repeat(30)} ${' '.repeat(100)}x`;
    assert.equal(countTokens(long), libraryCount(long));
    assert.equal(countTokens(long), libraryCount(long), 'the same long chunks a second time');
    const fixtures = filesUnder(path.join(FIXTURES, 'markdown')).map((f) => fs.readFileSync(f, 'utf8').replace(/^\uFEFF/, ''));
    const huge = Array.from({ length: 8 }, (_, i) => fixtures.join(`\n\n# Copy ${i}\n\n`)).join('\n');
    assert.ok(huge.length > 100_000);
    assert.equal(countTokens(huge), libraryCount(huge));
    assert.equal(countTokens('after a huge text'), libraryCount('after a huge text'));
  });
});

describe('pre-tokenizer scanner', () => {
  it('splits text exactly like the library pattern: fixtures, and random strings over every character class the pattern names', async () => {
    const { O200K_TOKEN_SPLIT_REGEX } = await import('gpt-tokenizer/encodingParams/constants');
    const unicode = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
    const samples = filesUnder(FIXTURES)
      .filter((f) => /\.(md|txt)$/.test(f))
      .map((f) => fs.readFileSync(f, 'utf8'));
    // ASCII of every kind, contractions, upper/title/modifier/other letters, marks (combining, spacing),
    // digits of other scripts, Unicode spaces, CJK and its punctuation.
    const alphabet = [
      ..."aZ09 '\t\n\r\u000b\f.,;:!?-_/\\\"'sdmtllvereSDMTLLVERE()[]{}<>#*`~@$%^&+=|AbCdEf",
      ...'\u00a0\u1680\u2003\u2028\u2029\u3000\ufeff\u0085',
      ...'ÀéßǅǈʰʹˆªºΩωДж\u0301\u0308\u0903\u093e\u20dd١٢३੫Ⅳ½²',
      ...'中文字的，。！？、「」《》：；一二三ーァカ한글',
      // Astral characters (a letter of CJK extension B, an emoji): the pattern's own chunks then.
      ...'𠀀😀',
    ];
    let seed = 42;
    const r = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 20000; i++) samples.push(Array.from({ length: Math.floor(r() * 30) }, () => alphabet[Math.floor(r() * alphabet.length)]).join(''));
    for (const s of samples) assert.deepEqual(preTokenize(s), s.match(unicode) ?? [], JSON.stringify(s.slice(0, 60)));
  });

  it('classes every code unit as the pattern’s classes do, tested one by one (surrogates apart)', () => {
    const table = fillClassTable(new Uint8Array(0x10000));
    for (let c = 0; c < 0x10000; c++) {
      let bits = 0;
      if (c >= 0xd800 && c <= 0xdfff) bits = 128;
      else for (const [re, bit] of CLASS_PATTERNS) if (re.test(String.fromCharCode(c))) bits |= bit;
      if (table[c] !== bits) assert.fail(`U+${c.toString(16).padStart(4, '0')}: ${table[c]} instead of ${bits}`);
    }
  });

  it('counts text with astral characters (emoji, rare CJK) through the pattern, exactly', () => {
    for (const t of ['emoji 👩‍👩‍👧 here', '𠀀𠀁 rare 汉字', "don't 😀's", '😀']) assert.equal(countTokens(t), libraryCount(t), t);
  });
});
