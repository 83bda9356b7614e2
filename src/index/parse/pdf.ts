import { IngestError } from '../../common/errors';
import type { SectionDraft, Unit } from '../blocks/parsed-document';
import { PREAMBLE_TITLE } from '../blocks/parsed-document';
import type { DocumentParser } from './parser';
import { anchorEntries, type FlatEntry, flattenOutline, headingsBySize, type OutlineNode, type PdfDoc, sectionFor } from './pdf-headings';
import { withoutAttachmentEncryption } from './pdf-encryption';
import { dropRunningLines, type Paragraph, toParagraphs } from './pdf-lines';
import { imageXObjects, type PdfPageRead, readPdfPage } from './pdf-page-read';
import { judgePages, needsOcrPages, noTextFailure, unreadPages } from './pdf-pages';
import { loadPdfJs, resolvePdfAssets } from './pdf-runtime';
import { OCR_MAX_DECODED_PIXELS } from './pdf-images';
import { readScans } from './pdf-scans';

export { joinWrapped } from './pdf-lines';

/**
 * pdf.js refused the file: a password, or a file it cannot make sense of (not a PDF, a broken cross-
 * reference table, a circular page tree, a bad flate stream). Both are the file's doing, never DocQA's:
 * `internal` is kept for our own faults.
 */
function pdfFailure(err: unknown): IngestError {
  const name = (err as { name?: string } | null)?.name ?? '';
  const msg = (err as { message?: string } | null)?.message ?? String(err);
  if (name === 'PasswordException') return new IngestError('parse', 'encrypted', `PDF is password-protected (${msg}): remove the password (print or save it without one) to index it`, { cause: err });
  if (name === 'AbortError') throw err;
  return new IngestError('parse', 'corrupt', `PDF is damaged and could not be read: ${msg}`, { cause: err });
}

/** A call into pdf.js whose failure is the file's (pdfFailure), not ours. */
async function fromPdfJs<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw pdfFailure(err);
  }
}

/** A one-page PDF with a line of Helvetica: what a worker reads once to start pdf.js (see warmUpPdfJs). */
function tinyPdf(): Uint8Array {
  const content = 'BT /F1 12 Tf 72 720 Td (warm) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/**
 * Starts pdf.js in this thread: loads it, and reads a one-line page through it (its in-thread worker,
 * the first font, the first compile of its hot paths). A fresh worker does this before its first PDF,
 * off that document's clock.
 */
export async function warmUpPdfJs(): Promise<void> {
  await pdfParser.parse(tinyPdf(), { path: 'warm-up.pdf' });
}

const JUNK_TITLE = /^(untitled|microsoft word - .*|.*\.(docx?|html?|pdf|tex|dvi))$/i;

// maxImageSize: an image larger than that is never decoded (for OCR; text extraction decodes none).
const PDF_OPTIONS = { cMapPacked: true, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, isOffscreenCanvasSupported: false, verbosity: 0, maxImageSize: OCR_MAX_DECODED_PIXELS } as const;

type LoadingTask = ReturnType<Awaited<ReturnType<typeof loadPdfJs>>['getDocument']>;

/** Opens the document; a file whose only encrypted part is its attachments is opened without them (pdf-encryption.ts). */
async function openPdf(bytes: Uint8Array, signal: AbortSignal | undefined, extra: Record<string, unknown> = {}): Promise<{ task: LoadingTask; doc: PdfDoc }> {
  const pdfjs = await loadPdfJs();
  const assets = resolvePdfAssets();
  const open = async (data: Uint8Array) => {
    const task = pdfjs.getDocument({ ...PDF_OPTIONS, ...extra, data, cMapUrl: assets.cMapUrl, standardFontDataUrl: assets.standardFontDataUrl });
    const onAbort = () => void task.destroy();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return { task, doc: await task.promise };
    } catch (err) {
      await task.destroy();
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  };
  try {
    return await open(new Uint8Array(bytes));
  } catch (err) {
    const plain = (err as { name?: string } | null)?.name === 'PasswordException' ? withoutAttachmentEncryption(bytes) : null;
    if (!plain) throw pdfFailure(err);
    return fromPdfJs(() => open(plain));
  }
}

export const pdfParser: DocumentParser = {
  format: 'pdf',
  extensions: ['.pdf'],
  async parse(bytes, ctx) {
    const started = performance.now();
    ctx.signal?.throwIfAborted();
    const { task, doc } = await openPdf(bytes, ctx.signal);
    const onAbort = () => void task.destroy();
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const reads: PdfPageRead[] = [];
      for (let n = 1; n <= doc.numPages; n++) {
        ctx.signal?.throwIfAborted();
        reads.push(await readPdfPage(doc, n));
      }
      const judged = judgePages(reads);
      const { lines: pages, extras, reports } = judged;
      // Pages that are images without text (scans): read by OCR when it is on, else named as unread.
      const scans = await readScans(bytes, doc, reports, judged.boxes, ctx, started, (extra) => openPdf(bytes, ctx.signal, extra));
      for (const [n, lines] of scans.lines) pages[n - 1] = lines;
      const name = ctx.path.split(/[\\/]/).pop() ?? ctx.path;
      // Nothing to index: say what the pages hold, images included (a scan needs OCR; a blank page does not).
      const noText = (furniture: number[] = []) => noTextFailure(reports, imageXObjects(bytes), furniture, { ocr: ctx.ocr !== undefined, pages: scans.imagePages, unread: scans.unread, name });
      if (pages.every((p, i) => p.length === 0 && extras[i]!.length === 0)) throw noText();
      dropRunningLines(pages, judged.boxes);
      let entries: FlatEntry[] = [];
      const outline = (await doc.getOutline().catch(() => null)) as OutlineNode[] | null;
      // A damaged outline (a destination pdf.js cannot resolve) is no reason to lose the text: headings then come from type size.
      const flat = outline?.length ? await flattenOutline(doc, outline, null, entries).then(() => true, () => false) : false;
      if (flat) {
        // Inherit a position for entries whose destination could not be resolved.
        entries.forEach((e, i) => {
          if (e.page === null && i > 0) {
            e.page = entries[i - 1]!.page;
            e.top = entries[i - 1]!.top;
          }
        });
        anchorEntries(entries, pages);
      } else {
        entries = headingsBySize(pages);
      }
      const breaks = pages.map(() => new Set<number>());
      for (const e of entries) if (e.page !== null) breaks[e.page - 1]!.add(e.line);
      // A page's form field values and annotation text follow its text, a paragraph each, in its last section.
      const paragraphs: Paragraph[] = pages.flatMap((lines, i) => [...toParagraphs(lines, i + 1, breaks[i]!), ...extras[i]!.map((text) => ({ page: i + 1, first: lines.length, text }))]);
      if (paragraphs.length === 0) {
        const numbered = pages.flatMap((lines, i) => (lines.length > 0 ? [i + 1] : []));
        throw noText(numbered);
      }
      const order = entries
        .map((_, i) => i)
        .sort((a, b) => {
          const ea = entries[a]!;
          const eb = entries[b]!;
          return (ea.page ?? 0) - (eb.page ?? 0) || ea.line - eb.line || a - b;
        });
      const sections: SectionDraft[] = entries.map((e) => ({
        title: e.title,
        parent: e.parent,
        location: e.page === null ? null : { kind: 'page', page: e.page },
      }));
      // Text before the first outline entry (or a PDF without outline) goes to a preamble/root section.
      let preamble = -1;
      const units: Unit[] = [];
      for (const p of paragraphs) {
        let s = entries.length ? sectionFor(entries, order, p) : null;
        if (s === null) {
          if (preamble < 0) {
            sections.unshift({ title: PREAMBLE_TITLE, parent: null, location: { kind: 'page', page: 1 } });
            for (const d of sections.slice(1)) if (d.parent !== null) d.parent++;
            for (const u of units) u.section++;
            preamble = 0;
          }
          s = preamble;
        } else if (preamble === 0) {
          s++;
        }
        // A scanned page has no text layer for the view to find the block in: the lines' regions go with it.
        units.push({ section: s, kind: 'prose', text: p.text, location: { kind: 'page', page: p.page, ...(p.boxes?.length ? { boxes: p.boxes } : {}) } });
      }
      const info = ((await doc.getMetadata().catch(() => null))?.info ?? {}) as { Title?: unknown };
      const metaTitle = typeof info.Title === 'string' ? info.Title.trim() : '';
      return {
        format: 'pdf',
        title: metaTitle && !JUNK_TITLE.test(metaTitle) ? metaTitle : null,
        sections,
        units,
        encoding: null,
        pageCount: doc.numPages,
        unreadPages: [...unreadPages(reports), ...scans.unread, ...(ctx.ocr ? [] : needsOcrPages(scans.imagePages))].sort((a, b) => a.page - b.page),
      };
    } finally {
      ctx.signal?.removeEventListener('abort', onAbort);
      await task.destroy();
    }
  },
};
