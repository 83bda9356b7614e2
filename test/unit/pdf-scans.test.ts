/**
 * Which PDF pages are scans (pdf-scans.ts, pdf-images.ts), in this process as an ingestion worker
 * parses them: pages drawing a large image and no text, told without decoding it; a small image (a logo,
 * a bullet) is not a scan; OCR that cannot start leaves the scanned pages named, never the text lost.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';
import { provideOcr } from '../../src/index/parse/ocr-runtime';
import { pdfParser } from '../../src/index/parse/pdf';
import { PdfWriter } from '../fixtures/pdf-writer';
import { fixture } from '../helpers';

preparePdfThread();

/** A page of Helvetica text, then a text-less page drawing a `w` × `h` grey image. */
function textThenImage(w: number, h: number): Buffer {
  const pdf = new PdfWriter();
  const catalog = pdf.reserve();
  const pages = pdf.reserve();
  const font = pdf.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const text = pdf.stream('BT /F1 12 Tf 72 700 Td (Mitochondria make ATP.) Tj ET');
  const image = pdf.stream(Buffer.alloc(w * h, 0x80), { dict: `/Type /XObject /Subtype /Image /Width ${w} /Height ${h} /ColorSpace /DeviceGray /BitsPerComponent 8` });
  const draw = pdf.stream('q 100 0 0 100 72 600 cm /Im1 Do Q');
  const p1 = pdf.add(`<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${text} 0 R >>`);
  const p2 = pdf.add(`<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 ${image} 0 R >> >> /Contents ${draw} 0 R >>`);
  pdf.set(pages, `<< /Type /Pages /Kids [${p1} 0 R ${p2} 0 R] /Count 2 >>`);
  pdf.set(catalog, `<< /Type /Catalog /Pages ${pages} 0 R >>`);
  return pdf.bytes(catalog);
}

describe('scanned pages', () => {
  it('a text-less page drawing an image large enough for text is a scan, named as unread with OCR off; a logo-sized image is not', async () => {
    const scan = await pdfParser.parse(textThenImage(200, 200), { path: 'handout.pdf' });
    assert.deepEqual(scan.unreadPages?.map((u) => [u.page, u.code, u.image_only]), [[2, 'no_text', true]]);
    const logo = await pdfParser.parse(textThenImage(40, 40), { path: 'handout.pdf' });
    assert.equal(logo.unreadPages?.length ?? 0, 0, 'a 40 × 40 image holds no page of text');
  });

  it('the fixture scans: the JPEG page and the 1-bit image-mask page are both told as scans, the text page is not', async () => {
    const d = await pdfParser.parse(fs.readFileSync(fixture('pdf', 'scanned-with-text.pdf')), { path: 'scanned-with-text.pdf' });
    assert.deepEqual(d.unreadPages?.map((u) => u.page), [2, 3]);
    assert.match(d.units.map((u) => u.text).join('\n'), /scanned from the printed handout/);
  });

  it('OCR that cannot start leaves the text pages indexed and the scanned pages named with why', async () => {
    provideOcr(() => Promise.reject(new Error('the WebAssembly is missing')));
    try {
      const d = await pdfParser.parse(fs.readFileSync(fixture('pdf', 'scanned-with-text.pdf')), { path: 'scanned-with-text.pdf', ocr: { limitMs: 60_000 } });
      assert.deepEqual(d.unreadPages?.map((u) => [u.page, u.reason, u.image_only]), [2, 3].map((p) => [p, 'OCR could not start: the WebAssembly is missing', true]));
      assert.match(d.units.map((u) => u.text).join('\n'), /scanned from the printed handout/);
    } finally {
      preparePdfThread();
    }
  });
});
