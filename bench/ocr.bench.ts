/**
 * OCR of scanned PDF pages (issue 36 item 5): seconds a page of DocQA's whole ingestion of a scan with
 * `ingest.ocr` on, in the real pool (dist/ingest-worker.js: pdf.js decodes the page image, Tesseract reads
 * it in the worker, then lines, sections and blocks), against tesseract.js's own API (`createWorker`,
 * its thread, the same English + Simplified Chinese data) recognising the same page's JPEG, in the same
 * run. The scan is test/fixtures/pdf/scanned-en-zh.pdf's English page (A4 at 150 dpi), repeated.
 * Both engines start before the clock: the rows are the steady pace, not the few seconds of start-up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorker } from 'tesseract.js';
import { createIngestPool } from '../src/index/ingest/ingest-pool';
import { IngestOptions } from '../src/index/model';
import { resolveOcrAssets } from '../src/index/parse/ocr-runtime';
import { englishScanJpeg, longScan } from '../test/fixtures/scan-pages';
import type { BenchRow } from './report';

const WORKER = path.join(__dirname, '..', 'dist', 'ingest-worker.js');
const PAGES = 6;

export async function ocrBench(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-ocr-bench-'));
  try {
    const scan = path.join(dir, 'scan.pdf');
    const warm = path.join(dir, 'warm.pdf');
    fs.writeFileSync(scan, longScan(PAGES));
    fs.writeFileSync(warm, longScan(1));
    const pool = createIngestPool(IngestOptions.parse({ ocr: true, max_document_ms: 600_000 }), WORKER, 1);
    const identity = { doc_id: 'd', source_label: 'bench', aliases: [] };
    let ours: number;
    try {
      await pool.run(warm, identity);
      const t = performance.now();
      const o = await pool.run(scan, identity);
      ours = (performance.now() - t) / 1000 / PAGES;
      if (o.ok !== true || o.document.unread_pages?.length) throw new Error(`the scan was not read whole: ${JSON.stringify(o.ok === true ? o.document.unread_pages : o)}`);
    } finally {
      await pool.close();
    }

    // tesseract.js's own way: a worker thread of its own, language data from a local folder (no download).
    const langs = path.join(dir, 'langs');
    fs.mkdirSync(langs);
    const assets = resolveOcrAssets();
    for (const [lang, file] of Object.entries(assets.languages)) fs.copyFileSync(file, path.join(langs, `${lang}.traineddata.gz`));
    const worker = await createWorker(['eng', 'chi_sim'], 1, { langPath: langs, cacheMethod: 'none', gzip: true });
    let lib: number;
    try {
      const jpeg = englishScanJpeg();
      await worker.recognize(jpeg);
      const t = performance.now();
      for (let i = 0; i < PAGES; i++) await worker.recognize(jpeg);
      lib = (performance.now() - t) / 1000 / PAGES;
    } finally {
      await worker.terminate();
    }
    return [{ name: `ocr.scanned_page_A4_150dpi.seconds_per_page_vs_tesseractjs`, value: ours, unit: 's/page', floor: lib, ratio: ours / lib, target: '<= 1.5' }];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
