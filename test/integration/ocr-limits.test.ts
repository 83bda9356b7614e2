/**
 * OCR under the per-document limits (issue 36 item 5), in the real pool (dist/ingest-worker.js): a scan
 * too long for the time limit is read as far as the limit allows and the rest named as unread (never a
 * complete document), and a page that declares a giant image is not decoded. The worker terminated
 * inside OCR is test/crash/ingest-pool-terminate.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createIngestPool, type OcrPage } from '../../src/index/ingest/ingest-pool';
import { IngestOptions } from '../../src/index/model';
import { PdfWriter } from '../fixtures/pdf-writer';
import { longScan } from '../fixtures/scan-pages';
import { tempDir } from '../helpers';

const WORKER = path.join(__dirname, '..', '..', 'dist', 'ingest-worker.js');
const identity = { doc_id: 'scan', source_label: 'scans', aliases: [] };

describe('OCR within the limits', () => {
  it('a 30-page scan over the time limit: the pages that fit are read, the rest named as unread with the limit to raise; progress comes a page at a time', { timeout: 5 * 60_000 }, async () => {
    assert.ok(fs.existsSync(WORKER), 'run npm run build first');
    const file = path.join(tempDir('docqa-longscan-'), 'long-scan.pdf');
    fs.writeFileSync(file, longScan(30));
    const pool = createIngestPool(IngestOptions.parse({ ocr: true, max_document_ms: 15_000 }), WORKER, 1);
    const pages: OcrPage[] = [];
    try {
      const o = await pool.run(file, identity, undefined, undefined, (p) => pages.push(p));
      if (o.ok === true) {
        const unread = o.document.unread_pages ?? [];
        assert.ok(unread.length > 0 && unread.length < 30, `read ${30 - unread.length} of 30 pages in 15 s`);
        for (const u of unread) {
          assert.equal(u.image_only, true);
          assert.match(u.reason, /OCR stopped before it: reading these \d+ pages would pass the document's time limit of 15 s \(ingest\.max_document_ms\); raise the limit to read them/);
        }
        // The pages read come first, in order; the unread ones are the rest.
        const read = 30 - unread.length;
        assert.deepEqual(unread.map((u) => u.page), Array.from({ length: unread.length }, (_, i) => read + 1 + i));
        assert.ok(o.document.blocks.some((b) => b.text.includes('thylakoid')));
        assert.deepEqual(pages.map((p) => p.page), Array.from({ length: read }, (_, i) => i + 1), 'a progress event for each page read, none for the pages left');
        assert.ok(pages.every((p) => p.count === 30));
      } else {
        // A page much slower than the ones before it (a machine suddenly busier) can still pass the hard
        // limit: then the pool stops the worker, and the document fails as too slow. Never complete.
        assert.equal(o.ok, false);
        assert.equal(o.failure.code, 'too_slow', JSON.stringify(o.failure));
      }
    } finally {
      await pool.close();
    }
  });

  it('a scanned page that declares a 10-gigapixel image is refused without decoding it, quickly and within memory', { timeout: 5 * 60_000 }, async () => {
    const w = new PdfWriter();
    const catalog = w.reserve();
    const pages = w.reserve();
    // 100,000 × 100,000 grey pixels claimed, 1 KB of data: decoding it would need 10 GB.
    const image = w.stream(Buffer.alloc(1024, 0x80), { dict: '/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceGray /BitsPerComponent 8' });
    const draw = w.stream('q 595 0 0 842 0 0 cm /Im1 Do Q');
    const page = w.add(`<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 ${image} 0 R >> >> /Contents ${draw} 0 R >>`);
    w.set(pages, `<< /Type /Pages /Kids [${page} 0 R] /Count 1 >>`);
    w.set(catalog, `<< /Type /Catalog /Pages ${pages} 0 R >>`);
    const file = path.join(tempDir('docqa-giant-'), 'giant.pdf');
    fs.writeFileSync(file, w.bytes(catalog));
    const pool = createIngestPool(IngestOptions.parse({ ocr: true, max_document_ms: 60_000, max_worker_memory_mb: 512 }), WORKER, 1);
    try {
      const o = await pool.run(file, identity);
      assert.equal(o.ok, false);
      if (o.ok !== false) return;
      assert.equal(o.failure.code, 'no_text', JSON.stringify(o.failure));
      assert.match(o.failure.message, /OCR found no text in the images of page 1/);
    } finally {
      await pool.close();
    }
  });
});
