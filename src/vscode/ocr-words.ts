import { ocrCost } from '../app/ocr-notice';
import type { IngestOptions } from '../index/model';

/** vscode.l10n.t, or a stand-in in the tests (pure: no `vscode` import). */
type T = (message: string, ...args: Array<string | number>) => string;

/**
 * The notification a build with OCR on starts with, in the UI's language: what reading scanned pages
 * costs in time, from the same numbers as the CLI's words (ocr-notice.ts).
 */
export function ocrOnWords(o: Pick<IngestOptions, 'max_document_ms'>, t: T): string {
  const c = ocrCost(o);
  return t(
    'DocQA: OCR is on: pages of PDFs that are images without text (scans) are read on this computer, about {0}–{1} s a page (a 40-page scan: {2}–{3} minutes), plus a few seconds to start. A document may take {4} s (docqa.ingest.maxDocumentMs): past about {5} scanned pages the rest are listed as unread; raise the limit to read them.',
    c.low,
    c.high,
    c.scanLow,
    c.scanHigh,
    c.limitS,
    c.pages,
  );
}
