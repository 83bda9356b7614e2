import type { UnreadPage } from '../../shared/document';
import type { ParseContext } from './parser';
import type { PdfDoc } from './pdf-headings';
import { PROBE_OPTIONS, probeImagePages } from './pdf-images';
import type { Line, PageBox } from './pdf-lines';
import { ocrPages } from './pdf-ocr';
import { imageXObjects } from './pdf-page-read';
import type { PdfPageReport } from './pdf-pages';
import { loadPdfJs } from './pdf-runtime';

/** A PDF's scanned pages: which they are, and what OCR read of them (nothing when it is off). */
export interface Scans {
  /** Pages with no text layer that draw an image large enough to hold text, in order. */
  imagePages: number[];
  /** Lines OCR read, by page. */
  lines: Map<number, Line[]>;
  /** Scanned pages OCR did not read although it was on (time limit, an image it could not decode). */
  unread: UnreadPage[];
}

type Opened = { task: { destroy(): Promise<void> }; doc: PdfDoc };

/**
 * Finds the pages that are images without text, and reads them with OCR when the parse asks for it
 * (ctx.ocr). The pages are told by two more pdf.js documents of the file (`openProbe`, see probeImagePages),
 * only when the file holds an image at all and some page has no text layer: a PDF of text pays nothing.
 */
export async function readScans(bytes: Uint8Array, doc: PdfDoc, reports: readonly PdfPageReport[], boxes: readonly PageBox[], ctx: ParseContext, started: number, openProbe: (options: Record<string, unknown>) => Promise<Opened>): Promise<Scans> {
  const none: Scans = { imagePages: [], lines: new Map(), unread: [] };
  const bare = reports.filter((r) => r.status === 'no_text_layer').map((r) => r.page);
  if (bare.length === 0 || imageXObjects(bytes) === 0) return none;
  const strict = await openProbe(PROBE_OPTIONS.strict);
  let imagePages: number[];
  try {
    const lenient = await openProbe(PROBE_OPTIONS.lenient);
    try {
      imagePages = [...(await probeImagePages(strict.doc, lenient.doc, bare))].sort((a, b) => a - b);
    } finally {
      await lenient.task.destroy();
    }
  } finally {
    await strict.task.destroy();
  }
  if (!ctx.ocr || imagePages.length === 0) return { ...none, imagePages };
  const tops = new Map(imagePages.map((n) => [n, boxes[n - 1]?.top ?? 792]));
  return { imagePages, ...(await ocrPages(doc, await loadPdfJs(), imagePages, tops, ctx.ocr, started, ctx.signal)) };
}
