import { IngestError } from '../../common/errors';
import type { SectionDraft, Unit } from '../blocks/parsed-document';
import { PREAMBLE_TITLE } from '../blocks/parsed-document';
import type { DocumentParser } from './parser';
import { anchorEntries, type FlatEntry, flattenOutline, headingsBySize, type OutlineNode, type PdfDoc, sectionFor } from './pdf-headings';
import { dropRunningLines, type Line, rejectGarbledText, type TextItem, toLines, toParagraphs } from './pdf-lines';
import { loadPdfJs, resolvePdfAssets } from './pdf-runtime';

export { joinWrapped } from './pdf-lines';

function pdfFailure(err: unknown): IngestError {
  const name = (err as { name?: string } | null)?.name ?? '';
  const msg = (err as { message?: string } | null)?.message ?? String(err);
  if (name === 'PasswordException') return new IngestError('parse', 'encrypted', `PDF is password-protected (${msg})`, { cause: err });
  if (name === 'AbortError') throw err;
  return new IngestError('parse', 'corrupt', `PDF could not be read: ${msg}`, { cause: err });
}

const JUNK_TITLE = /^(untitled|microsoft word - .*|.*\.(docx?|html?|pdf|tex|dvi))$/i;

export const pdfParser: DocumentParser = {
  format: 'pdf',
  extensions: ['.pdf'],
  async parse(bytes, ctx) {
    ctx.signal?.throwIfAborted();
    const pdfjs = await loadPdfJs();
    const assets = resolvePdfAssets();
    const task = pdfjs.getDocument({
      data: new Uint8Array(bytes),
      cMapUrl: assets.cMapUrl,
      cMapPacked: true,
      standardFontDataUrl: assets.standardFontDataUrl,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      isOffscreenCanvasSupported: false,
      verbosity: 0,
    });
    const onAbort = () => void task.destroy();
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let doc: PdfDoc;
      try {
        doc = await task.promise;
      } catch (err) {
        throw pdfFailure(err);
      }
      const pages: Line[][] = [];
      for (let n = 1; n <= doc.numPages; n++) {
        ctx.signal?.throwIfAborted();
        const page = await doc.getPage(n);
        const content = await page.getTextContent();
        pages.push(toLines(content.items.filter((i) => 'str' in i) as TextItem[]));
        page.cleanup();
      }
      if (pages.every((p) => p.length === 0)) {
        throw new IngestError('parse', 'no_text', `PDF has ${doc.numPages} page(s) but no extractable text (scanned images need OCR)`);
      }
      rejectGarbledText(pages);
      dropRunningLines(pages);
      let entries: FlatEntry[] = [];
      const outline = (await doc.getOutline().catch(() => null)) as OutlineNode[] | null;
      if (outline?.length) {
        await flattenOutline(doc, outline, null, entries);
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
      const paragraphs = pages.flatMap((lines, i) => toParagraphs(lines, i + 1, breaks[i]!));
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
        units.push({ section: s, kind: 'prose', text: p.text, location: { kind: 'page', page: p.page } });
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
      };
    } finally {
      ctx.signal?.removeEventListener('abort', onAbort);
      await task.destroy();
    }
  },
};
