/** What OCR read becomes the PDF parser's lines (ocr-lines.ts): placed on the page, CJK joined without spaces, noise left out. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinWords, ocrLines } from '../../src/index/parse/ocr-lines';

const row = (line: number, word: number, left: number, top: number, w: number, h: number, conf: number, text: string) => ['5', '1', '1', '1', String(line), String(word), left, top, w, h, conf, text].join('\t');

describe('OCR lines', () => {
  it('words join with spaces, CJK characters without; mixed text keeps the space at the script change', () => {
    assert.equal(joinWords(['Light', 'reactions']), 'Light reactions');
    assert.equal(joinWords(['卡尔', '文', '循环']), '卡尔文循环');
    assert.equal(joinWords(['ATP', '合成']), 'ATP 合成');
  });

  it('places each line on the page (y up, in points), its median word height as its size, and drops low-confidence noise', () => {
    const tsv = [
      '1\t1\t0\t0\t0\t0\t0\t0\t1240\t1754\t-1\t',
      row(1, 1, 150, 200, 300, 40, 95, 'Photosynthesis'),
      row(1, 2, 460, 205, 40, 30, 96, 'in'),
      row(2, 1, 150, 300, 60, 20, 20, '~~'),
      row(2, 2, 220, 300, 60, 20, 10, '%%'),
      row(3, 1, 150, 400, 60, 20, 91, 'Water'),
    ].join('\n');
    // The image covers an A4 page (595 × 842 points) at 1240 × 1754 pixels.
    const lines = ocrLines(tsv, { left: 0, top: 0, width: 595, height: 842, pixelsWide: 1240, pixelsHigh: 1754 }, 842);
    assert.deepEqual(
      lines.map((l) => l.text),
      ['Photosynthesis in', 'Water'],
    );
    const scale = 842 / 1754;
    assert.ok(Math.abs(lines[0]!.y - (842 - 240 * scale)) < 0.01, `baseline at the bottom of the line's box: ${lines[0]!.y}`);
    assert.ok(lines[0]!.size > lines[1]!.size, 'the heading is set larger');
  });
});
