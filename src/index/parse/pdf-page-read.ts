import type { PdfDoc } from './pdf-headings';
import { type Line, type PageBox, type TextItem, toLines } from './pdf-lines';

type PdfPage = Awaited<ReturnType<PdfDoc['getPage']>>;

/** What one page gave: its text layer as lines, the text of its form fields and annotations, or why nothing. */
export interface PdfPageRead {
  /** 1-based. */
  page: number;
  box: PageBox;
  lines: Line[];
  /** Values of its filled-in form fields and the text of its annotations (comments, free text), top to bottom. */
  extras: string[];
  /** pdf.js could not read the page (a broken content stream, a bad font): its message. */
  error: string | null;
}

/**
 * How many image XObjects the file holds, from its bytes: an image is a stream, and a stream is never
 * inside an object stream (PDF 32000-1 §7.5.7), so its dictionary's `/Subtype /Image` is always plain
 * text in the file (encryption leaves dictionaries readable). It is what tells a scan from a blank file.
 * pdf.js's operator list would tell it per page, but building it decodes every image: a JBIG2 scan held
 * a worker for minutes, and a page that loops its own content never returns.
 */
export function imageXObjects(bytes: Uint8Array): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1').match(/\/Subtype\s*\/Image\b/g)?.length ?? 0;
}

interface AnnotationData {
  subtype?: string;
  fieldType?: string;
  fieldValue?: unknown;
  checkBox?: boolean;
  radioButton?: boolean;
  pushButton?: boolean;
  hidden?: boolean;
  rect?: number[];
  options?: Array<{ exportValue?: unknown; displayValue?: unknown }>;
  contentsObj?: { str?: string };
}

/**
 * The text a person sees in a page's widgets and annotations, which the text layer (the page's content
 * stream) does not hold: a filled-in form field's value (a choice by its displayed option), a comment's or
 * a free-text box's words. Push buttons, check boxes and radio buttons carry no words of their own; a
 * link or a popup repeats nothing new.
 */
export function annotationTexts(annotations: readonly AnnotationData[]): string[] {
  const found: Array<{ text: string; y: number; x: number }> = [];
  for (const a of annotations) {
    if (a.hidden) continue;
    let text = '';
    if (a.subtype === 'Widget') {
      if (a.checkBox || a.radioButton || a.pushButton || a.fieldType === 'Sig') continue;
      const values = Array.isArray(a.fieldValue) ? a.fieldValue : [a.fieldValue];
      text = values
        .filter((v): v is string => typeof v === 'string')
        .map((v) => {
          const option = a.options?.find((o) => o.exportValue === v);
          return typeof option?.displayValue === 'string' ? option.displayValue : v;
        })
        .join(', ');
    } else if (a.subtype !== 'Link' && a.subtype !== 'Popup') {
      text = a.contentsObj?.str ?? '';
    }
    text = text.replace(/\s+/g, ' ').trim();
    if (text) found.push({ text, y: a.rect?.[3] ?? 0, x: a.rect?.[0] ?? 0 });
  }
  // Top to bottom, then left to right, as the page reads; equal places keep the page's order.
  return found
    .map((f, i) => ({ ...f, i }))
    .sort((a, b) => b.y - a.y || a.x - b.x || a.i - b.i)
    .map((f) => f.text);
}

const message = (err: unknown) => (err as { message?: string } | null)?.message ?? String(err);

/**
 * Reads page `n`: its text layer, its form fields and annotations. A page pdf.js cannot read gives its
 * error instead, so the others are still read.
 */
export async function readPdfPage(doc: PdfDoc, n: number): Promise<PdfPageRead> {
  const read: PdfPageRead = { page: n, box: { bottom: 0, top: 792 }, lines: [], extras: [], error: null };
  let page: PdfPage;
  try {
    page = await doc.getPage(n);
  } catch (err) {
    return { ...read, error: message(err) };
  }
  try {
    const [, y0, , y1] = page.view;
    read.box = { bottom: Math.min(y0 ?? 0, y1 ?? 792), top: Math.max(y0 ?? 0, y1 ?? 792) };
    const content = await page.getTextContent();
    read.lines = toLines(content.items.filter((i) => 'str' in i) as TextItem[]);
    read.extras = annotationTexts((await page.getAnnotations().catch(() => [])) as AnnotationData[]);
  } catch (err) {
    read.error = message(err);
  } finally {
    page.cleanup();
  }
  return read;
}
