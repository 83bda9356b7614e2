import type { UnreadPage } from '../../shared/document';
import { pgm, shrink } from './gray-image';
import { ocrLines } from './ocr-lines';
import { IngestError } from '../../common/errors';
import { loadOcr, OcrMemoryError } from './ocr-runtime';
import type { PdfDoc } from './pdf-headings';
import { pageImages } from './pdf-images';
import type { Line } from './pdf-lines';
import type { loadPdfJs } from './pdf-runtime';

/** How a parse reads scanned pages (ParseContext.ocr): set only when `ingest.ocr` is on. */
export interface OcrRequest {
  /** The document's time limit (ingest.max_document_ms): OCR stops before a page that would not fit in it. */
  limitMs: number;
  /** A page's OCR begins: `index` of `count` pages to read (1-based), page `page` of the document. */
  onPage?: (p: { index: number; count: number; page: number }) => void;
}

/**
 * The most pixels an image is given to Tesseract: an A4 page at 300 dpi (8.7 million). A page scanned
 * finer is shrunk to it (gray-image.ts): Tesseract reads 300 dpi text as well, in a quarter of the memory.
 */
export const OCR_MAX_PIXELS = 9_000_000;

/**
 * OCR leaves a tenth of the document's time limit for what follows it (sections, blocks) and for the
 * pages read before it: over the limit, the pool stops the worker and the document is lost whole.
 */
const LIMIT_SHARE = 0.9;

export interface OcrResult {
  /** The lines read, by page number. */
  lines: Map<number, Line[]>;
  /** Pages not read: OCR stopped at the time limit, or could not read them. */
  unread: UnreadPage[];
}

/** OCR over the worker's memory limit: the whole document fails (a page half read is no page), as any parse over it does. */
const memoryFailure = (err: OcrMemoryError) => new IngestError('parse', 'out_of_memory', err.message, { cause: err });

const message = (err: unknown) => (err as { message?: string } | null)?.message ?? String(err);

/**
 * Reads `pages` (pages whose text is only in images) with OCR, one after the other, each page's images
 * in drawing order. `started` is when the document's parse began (performance.now()): the pages read
 * must fit in the document's time limit from then, so before each page the time left is weighed against
 * the longest page so far, and the pages that would not fit are named as unread instead of the whole
 * document failing `too_slow`. The engine's start (once a worker) is not the document's: the pool's clock
 * stops meanwhile, and so does this one.
 */
export async function ocrPages(doc: PdfDoc, pdfjs: Awaited<ReturnType<typeof loadPdfJs>>, pages: readonly number[], pageTops: ReadonlyMap<number, number>, req: OcrRequest, started: number, signal?: AbortSignal): Promise<OcrResult> {
  const out: OcrResult = { lines: new Map(), unread: [] };
  if (pages.length === 0) return out;
  const engineStart = performance.now();
  let engine: Awaited<ReturnType<typeof loadOcr>>;
  try {
    engine = await loadOcr();
  } catch (err) {
    if (err instanceof OcrMemoryError) throw memoryFailure(err);
    // Never the document's fault: its text pages are still indexed, the scanned ones named with why.
    out.unread.push(...pages.map((page) => ({ page, code: 'no_text' as const, reason: `OCR could not start: ${message(err)}`, image_only: true as const })));
    return out;
  }
  const deadline = started + (performance.now() - engineStart) + req.limitMs * LIMIT_SHARE;
  let longest = 0;
  for (const [i, n] of pages.entries()) {
    signal?.throwIfAborted();
    const now = performance.now();
    if (i > 0 && now + longest > deadline) {
      const rest = pages.slice(i);
      const reason = `OCR stopped before it: reading ${rest.length === 1 ? 'it' : `these ${rest.length} pages`} would pass the document's time limit of ${Math.round(req.limitMs / 1000)} s (ingest.max_document_ms); raise the limit to read them`;
      out.unread.push(...rest.map((page) => ({ page, code: 'no_text' as const, reason, image_only: true as const })));
      break;
    }
    req.onPage?.({ index: i + 1, count: pages.length, page: n });
    const page = await doc.getPage(n);
    try {
      const lines: Line[] = [];
      for (const placed of await pageImages(page, pdfjs)) {
        const { image } = shrink(placed.image, OCR_MAX_PIXELS);
        const tsv = await engine.recognize(pgm(image));
        lines.push(...ocrLines(tsv, { left: placed.left, top: placed.top, width: placed.width, height: placed.height, pixelsWide: image.width, pixelsHigh: image.height }, pageTops.get(n) ?? 792));
      }
      // Top to bottom over all the page's images (a page pasted from two scans).
      out.lines.set(n, lines.map((l, k) => ({ l, k })).sort((a, b) => b.l.y - a.l.y || a.k - b.k).map((x) => x.l));
    } catch (err) {
      if (err instanceof OcrMemoryError) throw memoryFailure(err);
      out.unread.push({ page: n, code: 'corrupt', reason: `OCR could not read its image: ${message(err)}`, image_only: true });
    } finally {
      page.cleanup();
    }
    longest = Math.max(longest, performance.now() - now);
  }
  return out;
}
