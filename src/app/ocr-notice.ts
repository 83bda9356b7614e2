import type { IngestOptions } from '../index/model';

/**
 * Seconds OCR takes for a page, about: an A4 page at 150–300 dpi, English or Chinese, on one core of a
 * laptop (bench/ocr.bench.ts measures it: 1.7–3 s a page on a busy 2-core machine). Said before a
 * build, so a person who turns OCR on knows what a scanned book costs before it is read.
 */
export const OCR_SECONDS_PER_PAGE = { low: 2, high: 5 } as const;

/** The pages of a scan that fit in one document's time limit, at the slow end. */
export function pagesWithinLimit(o: Pick<IngestOptions, 'max_document_ms'>): number {
  return Math.max(1, Math.floor((o.max_document_ms * 0.9) / 1000 / OCR_SECONDS_PER_PAGE.high));
}

/** What OCR costs, in numbers: seconds a page, minutes for a 40-page scan, the document limit in seconds and the pages within it. */
export interface OcrCost {
  low: number;
  high: number;
  scanLow: number;
  scanHigh: number;
  limitS: number;
  pages: number;
}

export function ocrCost(o: Pick<IngestOptions, 'max_document_ms'>): OcrCost {
  const { low, high } = OCR_SECONDS_PER_PAGE;
  return { low, high, scanLow: Math.round((40 * low) / 60), scanHigh: Math.round((40 * high) / 60), limitS: Math.round(o.max_document_ms / 1000), pages: pagesWithinLimit(o) };
}

/** What OCR costs, said before a build with OCR on (the CLI's stderr; the extension says it in the UI's language: ocr-words.ts). */
export function ocrNotice(o: Pick<IngestOptions, 'max_document_ms'>): string {
  const c = ocrCost(o);
  return (
    `OCR is on: pages of PDFs that are images without text (scans) are read on this computer, about ${c.low}–${c.high} s a page ` +
    `(a 40-page scan: ${c.scanLow}–${c.scanHigh} minutes), plus a few seconds to start. ` +
    `A document may take ${c.limitS} s (ingest.max_document_ms): past about ${c.pages} scanned pages the rest are listed as unread; raise the limit to read them.`
  );
}
