import type { PdfDoc } from './pdf-headings';
import { type DecodedImage, type GrayImage, toGray, upright } from './gray-image';
import type { loadPdfJs } from './pdf-runtime';

type PdfJs = Awaited<ReturnType<typeof loadPdfJs>>;
type PdfPage = Awaited<ReturnType<PdfDoc['getPage']>>;

/**
 * The least pixels an image needs to be worth OCR: below this it is an icon, a bullet, a rule or a
 * logo, not a page of text (a line of 12-point text at 150 dpi is about 25 × 400 pixels).
 */
export const OCR_MIN_IMAGE_PIXELS = 10_000;

/**
 * The most pixels pdf.js decodes for OCR: an A3 page at 600 dpi is 70 million; beyond that a file that
 * declares a giant image is refused, not decoded (a 100,000 × 100,000 image would need 10 GB).
 */
export const OCR_MAX_DECODED_PIXELS = 80_000_000;

/**
 * Which of `pages` draw an image worth OCR, without decoding any. Each page's operator list is built in
 * two pdf.js documents of the file opened with `maxImageSize` at OCR_MIN_IMAGE_PIXELS, so neither decodes
 * a larger image: `strict` (PROBE_OPTIONS.strict, `stopAtErrors`) stops at the first such image, and pdf.js
 * then hands back the list as far as it got (nothing, as it flushes a list only at its end or every
 * thousand operators); `lenient` (PROBE_OPTIONS.lenient) leaves those images out and goes on to the end.
 * A strict list shorter than the lenient one was cut short: the page draws an image large enough to hold
 * text (or pdf.js met another error on it, which is taken the same way: a page is never called blank, and
 * left unread silently, when it may have text in an image). Decoding the images (what the operator list
 * otherwise does) took a JBIG2 scan past the time limit, and a whole-file byte search (`imageXObjects`)
 * cannot tell which page an image is on. A page whose only operator draws the image (no `q … cm` around
 * it, which scanners always write) gives two empty lists and is taken as blank.
 */
export async function probeImagePages(strict: PdfDoc, lenient: PdfDoc, pages: readonly number[]): Promise<Set<number>> {
  const found = new Set<number>();
  const length = async (doc: PdfDoc, n: number): Promise<number> => {
    const page = await doc.getPage(n);
    try {
      return (await page.getOperatorList()).fnArray.length;
    } finally {
      page.cleanup();
    }
  };
  for (const n of pages) {
    const cut = await length(strict, n).catch(() => -1);
    const whole = await length(lenient, n).catch(() => -1);
    if (cut < whole || cut < 0) found.add(n);
  }
  return found;
}

/** The options of the probe's two documents (see probeImagePages). */
export const PROBE_OPTIONS = {
  strict: { maxImageSize: OCR_MIN_IMAGE_PIXELS, stopAtErrors: true },
  lenient: { maxImageSize: OCR_MIN_IMAGE_PIXELS, stopAtErrors: false },
} as const;

/** An image of a page, upright as the page shows it, and where it is: the page view's box, y down, in points. */
export interface PlacedImage {
  image: GrayImage;
  left: number;
  top: number;
  width: number;
  height: number;
}

type Matrix = [number, number, number, number, number, number];
const times = (m: Matrix, n: readonly number[]): Matrix => [
  m[0] * n[0]! + m[2] * n[1]!,
  m[1] * n[0]! + m[3] * n[1]!,
  m[0] * n[2]! + m[2] * n[3]!,
  m[1] * n[2]! + m[3] * n[3]!,
  m[0] * n[4]! + m[2] * n[5]! + m[4],
  m[1] * n[4]! + m[3] * n[5]! + m[5],
];

interface Drawn {
  /** pdf.js's id of the decoded image (in the page's objects, or the document's common objects). */
  objId: string | null;
  /** An inline image: decoded already, in the operator list. */
  inline: DecodedImage | null;
  mask: boolean;
  width: number;
  height: number;
  /** The page view's transform times the image's: maps its unit square into the view (y down). */
  ctm: Matrix;
}

/** The images a page's operator list draws, with their transforms (forms' matrices included). */
function drawnImages(ops: { fnArray: number[]; argsArray: unknown[] }, OPS: PdfJs['OPS'], view: Matrix): Drawn[] {
  const out: Drawn[] = [];
  const stack: Matrix[] = [];
  let ctm = view;
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i] as unknown[] | null;
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = times(ctm, args as number[]);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args?.[0])) ctm = times(ctm, args[0] as number[]);
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.paintImageXObject) out.push({ objId: String(args![0]), inline: null, mask: false, width: Number(args![1]), height: Number(args![2]), ctm });
    else if (fn === OPS.paintImageMaskXObject || fn === OPS.paintInlineImageXObject) {
      const img = args![0] as DecodedImage & { data: unknown };
      const isId = typeof img.data === 'string';
      out.push({ objId: isId ? (img.data as unknown as string) : null, inline: isId ? null : img, mask: fn === OPS.paintImageMaskXObject, width: img.width, height: img.height, ctm });
    }
  }
  return out.filter((d) => d.width * d.height >= OCR_MIN_IMAGE_PIXELS);
}

/** A decoded image by id: pdf.js resolves it once the page's operator list has asked for it. */
function decoded(page: PdfPage, objId: string): Promise<DecodedImage | null> {
  const objs = (objId.startsWith('g_') ? page.commonObjs : page.objs) as unknown as { get(id: string, cb: (v: unknown) => void): void };
  return new Promise((resolve) => objs.get(objId, (v) => resolve((v as DecodedImage | null) ?? null)));
}

/**
 * The images of page `page` worth OCR, decoded, grey and upright, in drawing order, with their boxes in
 * the page view. Decoding is pdf.js's (JPEG, JBIG2, CCITT fax, JPEG 2000, Flate); an image it could not
 * decode is left out.
 */
export async function pageImages(page: PdfPage, pdfjs: PdfJs): Promise<PlacedImage[]> {
  const viewport = page.getViewport({ scale: 1 });
  const ops = await page.getOperatorList();
  const placed: PlacedImage[] = [];
  for (const d of drawnImages(ops, pdfjs.OPS, viewport.transform as Matrix)) {
    const img = d.inline ?? (d.objId ? await decoded(page, d.objId) : null);
    if (!img || !img.data) continue;
    const [a, b, c, dd, e, f] = d.ctm;
    // The unit square's corners in the view: its box, whatever the turn.
    const xs = [e, e + a, e + c, e + a + c];
    const ys = [f, f + b, f + dd, f + b + dd];
    const left = Math.min(...xs);
    const top = Math.min(...ys);
    placed.push({ image: upright(toGray(img, d.mask), [a, b, c, dd]), left, top, width: Math.max(...xs) - left, height: Math.max(...ys) - top });
  }
  return placed;
}
