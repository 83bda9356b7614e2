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

/** pdf.js's operators that paint an image (pdfjs.OPS names). */
const IMAGE_OPS = ['paintImageXObject', 'paintInlineImageXObject', 'paintImageMaskXObject', 'paintJpegXObject', 'paintInlineImageXObjectGroup', 'paintImageXObjectRepeat', 'paintImageMaskXObjectGroup', 'paintImageMaskXObjectRepeat', 'paintSolidColorImageMask'] as const;

/** The operator numbers of IMAGE_OPS in this pdf.js. */
export function imageOps(ops: Record<string, number>): ReadonlySet<number> {
  return new Set(IMAGE_OPS.map((n) => ops[n]).filter((n): n is number => n !== undefined));
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

/**
 * Whether page `n` draws an image, from its operator list; null when that cannot be told within `ms`.
 * It is asked only of pages without any text (that is what a scan is, and what OCR would read): building
 * the operator list decodes the page's images, seconds for a large scan, and a malformed page can loop.
 */
export async function pageHasImages(doc: PdfDoc, n: number, images: ReadonlySet<number>, ms: number): Promise<boolean | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    const page = await doc.getPage(n);
    const found = await Promise.race([page.getOperatorList().then((ops) => ops.fnArray.some((op) => images.has(op))), late]);
    page.cleanup();
    return found;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
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
