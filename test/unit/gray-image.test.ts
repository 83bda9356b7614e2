/** Page images as OCR is given them (gray-image.ts): grey from pdf.js's decoded kinds, turned upright, shrunk, as PGM. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pgm, shrink, toGray, upright } from '../../src/index/parse/gray-image';

describe('page images for OCR', () => {
  it('a 1-bit image (and an image mask) reads a set bit as white, rows padded to a byte', () => {
    // 10 pixels wide: two bytes a row. Row 0: first pixel set (white), rest clear (black).
    const g = toGray({ width: 10, height: 1, kind: 1, data: new Uint8Array([0x80, 0x00]) }, false);
    assert.deepEqual([...g.data], [255, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual([...toGray({ width: 10, height: 1, data: new Uint8Array([0x80, 0x00]) }, true).data], [...g.data]);
  });

  it('RGB is luma; a transparent RGBA pixel is the white page under it', () => {
    assert.deepEqual([...toGray({ width: 2, height: 1, kind: 2, data: new Uint8Array([255, 0, 0, 0, 0, 255]) }, false).data], [76, 29]);
    assert.deepEqual([...toGray({ width: 2, height: 1, kind: 3, data: new Uint8Array([0, 0, 0, 0, 0, 0, 0, 255]) }, false).data], [255, 0]);
  });

  it('an image drawn flipped or sideways is turned as the page shows it', () => {
    // 2 × 1: [a b]. Drawn upright by a PDF matrix [w 0 0 h] (y up) is the view's [1 0 0 -1].
    const img = { width: 2, height: 1, data: new Uint8Array([1, 2]) };
    assert.deepEqual([...upright(img, [1, 0, 0, -1]).data], [1, 2]);
    assert.deepEqual([...upright(img, [-1, 0, 0, -1]).data], [2, 1], 'mirrored');
    const turned = upright(img, [0, 1, 1, 0]);
    assert.deepEqual([turned.width, turned.height], [1, 2], 'a quarter turn swaps the sides');
  });

  it('a fine scan is shrunk by a whole factor to at most the pixels asked, each pixel the mean of its square', () => {
    const big = { width: 4, height: 4, data: new Uint8Array([0, 0, 255, 255, 0, 0, 255, 255, 100, 100, 50, 50, 100, 100, 50, 50]) };
    const { image, factor } = shrink(big, 4);
    assert.equal(factor, 2);
    assert.deepEqual([image.width, image.height, ...image.data], [2, 2, 0, 255, 100, 50]);
    assert.equal(shrink(big, 16).image, big, 'small enough: the same image');
  });

  it('is written as a binary PGM Tesseract reads', () => {
    const out = pgm({ width: 2, height: 1, data: new Uint8Array([7, 9]) });
    assert.equal(Buffer.from(out.subarray(0, 11)).toString('latin1'), 'P5\n2 1\n255\n');
    assert.deepEqual([...out.subarray(11)], [7, 9]);
  });
});
