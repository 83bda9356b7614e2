/**
 * A scanned page's block is highlighted from the regions OCR gave its lines (issue 36): pixels of the
 * image to points of the page as shown (ocr-lines.ts), lines to paragraphs to blocks (pdf-lines.ts,
 * blocker.ts), kept through the segment's block table (block-table.ts, also without them: older packs),
 * and points to CSS pixels in the page view (pdf-regions.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildBlocks } from '../../src/index/blocks/blocker';
import { ChunkingParams } from '../../src/index/model';
import type { PageRegion } from '../../src/shared/block-location';
import type { Block } from '../../src/shared/document';
import { lineRegion, ocrLines } from '../../src/index/parse/ocr-lines';
import { toParagraphs } from '../../src/index/parse/pdf-lines';
import { BlockTableBuilder, blockLocation, readBlockTable } from '../../src/index/store/block-table';
import { regionRects } from '../../src/shared/pdf-regions';

const word = (line: number, n: number, left: number, top: number, w: number, h: number, text: string) => ['5', '1', '1', '1', String(line), String(n), left, top, w, h, 95, text].join('\t');

describe('OCR regions, from the scan to the highlight', () => {
  it("a line's region is its words' box, from the image's pixels to points of the page where the image is placed", () => {
    // A 1240 × 1754 image (150 dpi) drawn over the whole A4 page: about 0.48 points a pixel.
    const full = { left: 0, top: 0, width: 595, height: 842, pixelsWide: 1240, pixelsHigh: 1754 };
    assert.deepEqual(lineRegion([{ left: 150, top: 200, width: 300, height: 40 }, { left: 460, top: 205, width: 40, height: 30 }], full), [72, 96, 239.9, 115.2]);
    // The same pixels in an image placed at (100, 50), half the size: scaled, then moved.
    const half = { left: 100, top: 50, width: 297.5, height: 421, pixelsWide: 1240, pixelsHigh: 1754 };
    assert.deepEqual(lineRegion([{ left: 150, top: 200, width: 350, height: 40 }], half), [136, 98, 220, 107.6]);
    // ocrLines gives each line its region; noise lines (and their regions) are left out.
    const tsv = [word(1, 1, 150, 200, 300, 40, 'Light'), word(1, 2, 460, 205, 40, 30, 'reactions'), word(2, 1, 150, 260, 200, 30, 'Water')].join('\n');
    assert.deepEqual(
      ocrLines(tsv, full, 842).map((l) => l.box),
      [
        [72, 96, 239.9, 115.2],
        [72, 124.8, 167.9, 139.2],
      ],
    );
  });

  it("a paragraph carries its lines' regions, and so does the block made of it; merged paragraphs of one page carry both's", () => {
    const box = (top: number): PageRegion => [72, top, 400, top + 12];
    const lines = [
      { text: 'Light reactions take place', y: 700, size: 12, box: box(130) },
      { text: 'in the thylakoid membranes.', y: 686, size: 12, box: box(144) },
      { text: 'Water is split there.', y: 650, size: 12, box: box(180) },
    ];
    const paragraphs = toParagraphs(lines, 2, new Set());
    assert.deepEqual(
      paragraphs.map((p) => p.boxes),
      [[box(130), box(144)], [box(180)]],
    );
    // Two short paragraphs of one page in one section become one block: its regions are all three lines'.
    const units = paragraphs.map((p) => ({ section: 0, kind: 'prose' as const, text: p.text, location: { kind: 'page' as const, page: 2, boxes: p.boxes! } }));
    const blocks = buildBlocks(units, ChunkingParams.parse({}));
    assert.equal(blocks.length, 1);
    assert.deepEqual(blocks[0]!.location, { kind: 'page', page: 2, boxes: [box(130), box(144), box(180)] });
  });

  it('the block table keeps the regions (to the tenth of a point, as written) and reads a pack without them as blocks without regions', async () => {
    const block = (i: number, location: Block['location']): Block => ({ block_id: `b${i}`, block_index: i, section_path: 'S', text: 'x', token_count: 1, location });
    const scanned: PageRegion[] = [
      [72.9, 128.7, 400.2, 140.2],
      [72.5, 147.9, 393.9, 159.4],
    ];
    const blocks = [block(0, { kind: 'page', page: 1 }), block(1, { kind: 'page', page: 2, boxes: scanned }), block(2, { kind: 'lines', line_start: 3, line_end: 4 })];
    const write = (list: Block[]) => {
      const b = new BlockTableBuilder(list.length);
      list.forEach((x, i) => b.add(x, i + 1));
      return b.arrays();
    };
    const tick = async () => undefined;
    const withRegions = await readBlockTable(write(blocks), 'blocks.pack', 3, 3, tick);
    assert.deepEqual(
      [0, 1, 2].map((i) => blockLocation(withRegions, i)),
      blocks.map((b) => b.location),
    );
    // Nothing scanned: no region columns at all, so the pack is what DocQA wrote before it kept regions.
    const plain = write([blocks[0]!, blocks[2]!]);
    assert.equal('boxes' in plain || 'boxStarts' in plain, false);
    const older = await readBlockTable(plain, 'blocks.pack', 2, 2, tick);
    assert.deepEqual(blockLocation(older, 0), { kind: 'page', page: 1 });
    // Damaged region columns are refused as a corrupt store, not read as nonsense.
    const broken = write(blocks);
    broken.boxStarts = new Uint32Array([0, 0, 5, 5]);
    await assert.rejects(readBlockTable(broken, 'blocks.pack', 3, 3, tick), /page regions/);
  });

  it('the view draws each region in CSS pixels at its scale, padded, clipped to the page, and drops empty ones', () => {
    const page = { width: 595 * 1.5, height: 842 * 1.5 };
    const [r] = regionRects([[72, 96, 240, 115.2]], 1.5, page);
    const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;
    assert.ok(r && near(r.left, (72 - 1.5) * 1.5) && near(r.top, (96 - 1.5) * 1.5) && near(r.width, (240 - 72 + 3) * 1.5) && near(r.height, (115.2 - 96 + 3) * 1.5), JSON.stringify(r));
    const [edge] = regionRects([[0, 830, 600, 850]], 1, { width: 595, height: 842 });
    assert.deepEqual(edge, { left: 0, top: 828.5, width: 595, height: 13.5 });
    assert.deepEqual(regionRects([[700, 900, 800, 950]], 1, { width: 595, height: 842 }), []);
  });
});
