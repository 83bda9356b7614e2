import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildBlocks } from '../../src/index/blocks/blocker';
import type { Unit } from '../../src/index/blocks/parsed-document';
import { countTokens } from '../../src/common/tokenizer';

const params = { target_tokens: 64, max_tokens: 96, min_tokens: 16 };

function linesUnit(text: string, line_start: number, section = 0, kind: Unit['kind'] = 'prose'): Unit {
  return { section, kind, text, location: { kind: 'lines', line_start, line_end: line_start + text.split('\n').length - 1 } };
}

describe('buildBlocks', () => {
  it('splits a long English paragraph at sentence boundaries, every piece within max tokens', () => {
    const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i + 1} explains one more detail of the experiment.`);
    const text = sentences.join(' ');
    const blocks = buildBlocks([linesUnit(text, 10)], params);
    assert.ok(blocks.length > 1);
    for (const b of blocks) {
      assert.ok(b.tokens <= params.max_tokens, `${b.tokens} tokens`);
      assert.equal(b.tokens, countTokens(b.text));
      assert.match(b.text, /^Sentence number \d+ .*experiment\.$/, 'pieces start and end on sentence boundaries');
      assert.deepEqual(b.location, { kind: 'lines', line_start: 10, line_end: 10 });
    }
    assert.equal(blocks.map((b) => b.text).join(' '), text, 'nothing lost or duplicated');
  });

  it('splits a long Chinese paragraph at 。！？', () => {
    const text = Array.from({ length: 40 }, (_, i) => `第${i + 1}条笔记说明实验的一个细节${i % 3 === 0 ? '！' : '。'}`).join('');
    const blocks = buildBlocks([linesUnit(text, 3)], params);
    assert.ok(blocks.length > 1);
    for (const b of blocks) {
      assert.ok(b.tokens <= params.max_tokens);
      assert.match(b.text, /[。！]$/u);
    }
    assert.equal(blocks.map((b) => b.text).join(''), text);
  });

  it('splits long code at line boundaries with exact line ranges', () => {
    const code = ['```js', ...Array.from({ length: 60 }, (_, i) => `const value${i} = compute(${i}, "some argument text");`), '```'].join('\n');
    const blocks = buildBlocks([linesUnit(code, 100, 0, 'code')], params);
    assert.ok(blocks.length > 1);
    let expectedStart = 100;
    for (const b of blocks) {
      assert.ok(b.tokens <= params.max_tokens);
      assert.equal(b.location.kind, 'lines');
      if (b.location.kind !== 'lines') continue;
      assert.equal(b.location.line_start, expectedStart, 'pieces tile the unit without gaps');
      assert.equal(b.location.line_end - b.location.line_start + 1, b.text.split('\n').length);
      assert.equal(b.text.split('\n')[0], code.split('\n')[b.location.line_start - 100]);
      expectedStart = b.location.line_end + 1;
    }
    assert.equal(expectedStart, 162);
  });

  it('keeps code indented as its reader sees it: shared indentation removed, the first line of a piece keeps its own', () => {
    // An indented code block: four spaces shared by every line, the body indented further.
    const indented = ['    def area(r):', '        return 3.14159 * r * r', '', '    print(area(2))'].join('\n');
    assert.deepEqual(
      buildBlocks([linesUnit(indented, 5, 0, 'code')], params).map((b) => [b.text, b.location]),
      [['def area(r):\n    return 3.14159 * r * r\n\nprint(area(2))', { kind: 'lines', line_start: 5, line_end: 8 }]],
    );
    // A long function split at lines: a piece that starts inside the body starts indented.
    const fn = ['```python', 'def run():', ...Array.from({ length: 40 }, (_, i) => `    step_${i} = measure(sample, ${i})  # reading ${i}`), '```'].join('\n');
    const pieces = buildBlocks([linesUnit(fn, 1, 0, 'code')], params);
    assert.ok(pieces.length > 2);
    for (const b of pieces.slice(1)) {
      if (b.location.kind !== 'lines') continue;
      assert.equal(b.text.split('\n')[0], fn.split('\n')[b.location.line_start - 1], 'the source line, indentation included');
      assert.match(b.text, /^ {4}step_/);
    }
    // Tiny neighbours merged with code that starts indented still carry the exact count of their join.
    const merged = buildBlocks([linesUnit('Setup.', 1), linesUnit('        x = 1\n    y = 2', 3, 0, 'code'), linesUnit('Done.', 6)], params);
    assert.deepEqual(merged.map((b) => b.text), ['Setup.\n\n    x = 1\ny = 2\n\nDone.']);
    for (const b of [...pieces, ...merged]) assert.equal(b.tokens, countTokens(b.text));
  });

  it('repeats a long table’s header rows in each of its pieces; locations stay the rows each piece holds', () => {
    const rows = Array.from({ length: 40 }, (_, i) => `| ${2000 + i} | ${(i * 3.7).toFixed(1)} mm | station ${i % 7} |`);
    const table = ['| Year | Rainfall | Site |', '|---|--:|---|', ...rows].join('\n');
    const blocks = buildBlocks([linesUnit(table, 10, 0, 'table')], params);
    assert.ok(blocks.length > 2);
    let next = 10;
    for (const [i, b] of blocks.entries()) {
      assert.ok(b.tokens <= params.max_tokens, `${b.tokens} tokens`);
      assert.equal(b.tokens, countTokens(b.text));
      assert.ok(b.text.startsWith('| Year | Rainfall | Site |\n|---|--:|---|\n| 20'), b.text);
      if (b.location.kind !== 'lines') continue;
      assert.equal(b.location.line_start, next, 'pieces tile the table');
      const held = b.text.split('\n').slice(i === 0 ? 0 : 2);
      assert.deepEqual(held, table.split('\n').slice(b.location.line_start - 10, b.location.line_end - 9), 'the rows of its location, after the repeated header');
      next = b.location.line_end + 1;
    }
    assert.equal(next, 52);
  });

  it('cuts a single run with no boundaries (no spaces, no sentence marks) by tokens, never splitting a surrogate pair', () => {
    const text = '𠀀'.repeat(300) + 'x'.repeat(500);
    const blocks = buildBlocks([linesUnit(text, 1)], params);
    assert.ok(blocks.length > 2);
    assert.ok(blocks.every((b) => b.tokens <= params.max_tokens && !/^[\udc00-\udfff]/.test(b.text) && !/[\ud800-\udbff]$/.test(b.text)));
    assert.equal(blocks.map((b) => b.text).join(''), text);
  });

  it('cuts long unpunctuated Chinese lines (classical text) into pieces within max tokens, each on its own line', () => {
    const han = '天地玄黃宇宙洪荒日月盈昃辰宿列張寒來暑往秋收冬藏閏餘成歲律呂調陽雲騰致雨露結為霜';
    const line = (k: number) => Array.from({ length: 4000 }, (_, i) => han[(i * 7 + k) % han.length]).join('');
    const lines = [line(1), line(2), line(3)];
    const blocks = buildBlocks([linesUnit(lines.join('\n'), 10)], params);
    assert.ok(blocks.length > 30);
    assert.ok(blocks.every((b) => b.tokens <= params.max_tokens && b.tokens === countTokens(b.text)));
    // Pieces never cross a line here (each line is a sentence of its own), so each lies on one line.
    let at = 0;
    for (const b of blocks) {
      const k = Math.floor(at / 4000);
      assert.equal(Math.floor((at + b.text.length - 1) / 4000), k, 'a piece within one line');
      assert.deepEqual(b.location, { kind: 'lines', line_start: 10 + k, line_end: 10 + k });
      at += b.text.length;
    }
    assert.equal(blocks.map((b) => b.text).join(''), lines.join(''));
  });

  it('merges tiny neighbours within a section up to the target, never across sections', () => {
    const units = [linesUnit('Short one.', 1, 0), linesUnit('Short two.', 3, 0), linesUnit('Short three.', 5, 1), linesUnit('Short four.', 7, 1)];
    const blocks = buildBlocks(units, params);
    assert.deepEqual(
      blocks.map((b) => [b.section, b.text, b.location]),
      [
        [0, 'Short one.\n\nShort two.', { kind: 'lines', line_start: 1, line_end: 3 }],
        [1, 'Short three.\n\nShort four.', { kind: 'lines', line_start: 5, line_end: 7 }],
      ],
    );
  });

  it('does not merge across PDF pages', () => {
    const page = (p: number, text: string): Unit => ({ section: 0, kind: 'prose', text, location: { kind: 'page', page: p } });
    const blocks = buildBlocks([page(1, 'End of page one.'), page(2, 'Start of page two.')], params);
    assert.equal(blocks.length, 2);
  });

  it('is deterministic', () => {
    const text = Array.from({ length: 50 }, (_, i) => `Point ${i}: details follow here.`).join(' ');
    assert.deepEqual(buildBlocks([linesUnit(text, 1)], params), buildBlocks([linesUnit(text, 1)], params));
  });
});
