import { IngestError } from '../../common/errors';
import type { UnreadPage } from '../model';
import type { Line, PageBox } from './pdf-lines';
import type { PdfPageRead } from './pdf-page-read';
import { judgeText } from './pdf-text-quality';

/**
 * What became of each page of a PDF. `image_only`: no text layer, no field or annotation text, but
 * images: a scan, what OCR would read (issue 36 builds on this). `unreadable`: a text layer that is
 * glyph codes, not text. `broken`: pdf.js could not read the page. `blank`: nothing on it to read.
 */
export type PageStatus = 'text' | 'image_only' | 'unreadable' | 'broken' | 'blank';

export interface PdfPageReport {
  page: number;
  status: PageStatus;
  /** For a page without text: whether it draws an image, null when not told (see pageHasImages). */
  images: boolean | null;
  /** For `unreadable` and `broken`: why, in words. */
  reason: string | null;
}

/** The pages' text as the parser goes on with it; unreadable and broken pages are left empty. */
export interface PdfPages {
  lines: Line[][];
  extras: string[][];
  boxes: PageBox[];
  reports: PdfPageReport[];
}

/** Time to tell which pages of a text-less PDF are images, all pages together. */
export const IMAGE_CHECK_MS = 5_000;

/**
 * Of a document without any text: which of its blank pages are images (a scan), within IMAGE_CHECK_MS
 * for all of them; the pages not reached stay untold (images: null).
 */
export async function lookForImages(reports: PdfPageReport[], hasImages: (page: number, ms: number) => Promise<boolean | null>): Promise<void> {
  const until = performance.now() + IMAGE_CHECK_MS;
  for (const r of reports) {
    const left = until - performance.now();
    if (r.status !== 'blank' || left <= 0) continue;
    r.images = await hasImages(r.page, left);
    if (r.images) r.status = 'image_only';
  }
}

/** Judges each page read: text that is not text is dropped with its page named, stray glyph codes removed. */
export function judgePages(reads: readonly PdfPageRead[]): PdfPages {
  const out: PdfPages = { lines: [], extras: [], boxes: [], reports: [] };
  for (const r of reads) {
    out.boxes.push(r.box);
    let status: PageStatus = 'text';
    let reason: string | null = null;
    let lines = r.lines;
    let extras = r.extras;
    if (r.error !== null) {
      [status, reason, lines, extras] = ['broken', r.error, [], []];
    } else {
      const judged = judgeText(lines);
      lines = judged.lines;
      if (judged.unreadable !== null) [status, reason] = ['unreadable', judged.unreadable];
      // Field and annotation text stays even on a page whose text layer is unreadable: it has its own encoding.
      if (status === 'text' && lines.length === 0 && extras.length === 0) status = 'blank';
    }
    out.lines.push(lines);
    out.extras.push(extras);
    out.reports.push({ page: r.page, status, reason, images: null });
  }
  return out;
}

/** "1–3, 7": page numbers as ranges. */
export function pageRanges(pages: readonly number[]): string {
  const parts: string[] = [];
  let start = -1;
  let prev = -1;
  for (const p of [...pages].sort((a, b) => a - b)) {
    if (p === prev + 1) {
      prev = p;
      continue;
    }
    if (start > 0) parts.push(start === prev ? `${start}` : `${start}–${prev}`);
    start = prev = p;
  }
  if (start > 0) parts.push(start === prev ? `${start}` : `${start}–${prev}`);
  return parts.join(', ');
}

const pagesWord = (pages: readonly number[]) => `${pages.length === 1 ? 'page' : 'pages'} ${pageRanges(pages)}`;

/** Pages whose text is not indexed although they have some: named in a partial document. */
export function unreadPages(reports: readonly PdfPageReport[]): UnreadPage[] {
  return reports
    .filter((r) => r.status === 'unreadable' || r.status === 'broken')
    .map((r) => (r.status === 'broken' ? { page: r.page, code: 'corrupt', reason: `the page is damaged: ${r.reason}` } : { page: r.page, code: 'no_text', reason: `its text layer is unreadable: ${r.reason}` }));
}

/**
 * The failure of a PDF none of whose pages gave text, saying what each kind of page held: a scan (needs
 * OCR) only where there are images; glyph codes; pages pdf.js could not read; blank pages; and text that
 * was there but is not indexed (`furniture`: pages whose only text was page numbers).
 */
export function noTextFailure(reports: readonly PdfPageReport[], furniture: readonly number[] = []): IngestError {
  const by = (s: PageStatus) => reports.filter((r) => r.status === s).map((r) => r.page);
  const broken = by('broken');
  if (broken.length === reports.length && reports.length > 0) {
    return new IngestError('parse', 'corrupt', `PDF is damaged: no page could be read (page ${reports[0]!.page}: ${reports[0]!.reason})`);
  }
  const said: string[] = [];
  const images = by('image_only');
  if (images.length) said.push(`${pagesWord(images)} ${images.length === 1 ? 'is an image' : 'are images'} without a text layer (a scan: its text needs OCR, which DocQA does not do)`);
  const unreadable = reports.filter((r) => r.status === 'unreadable');
  if (unreadable.length) said.push(`the text layer of ${pagesWord(unreadable.map((r) => r.page))} is unreadable (${unreadable[0]!.reason})`);
  if (broken.length) said.push(`${pagesWord(broken)} could not be read (${reports.find((r) => r.status === 'broken')!.reason})`);
  if (furniture.length) said.push(`the only text of ${pagesWord(furniture)} is page numbers, which are not indexed`);
  const blank = reports.filter((r) => r.status === 'blank' && !furniture.includes(r.page));
  const empty = blank.filter((r) => r.images === false).map((r) => r.page);
  if (empty.length) said.push(`${pagesWord(empty)} ${empty.length === 1 ? 'has' : 'have'} no text, no form field or annotation text, and no image`);
  const untold = blank.filter((r) => r.images === null).map((r) => r.page);
  if (untold.length) said.push(`${pagesWord(untold)} ${untold.length === 1 ? 'has' : 'have'} no text layer (whether ${untold.length === 1 ? 'it is an image' : 'they are images'} could not be told in time)`);
  return new IngestError('parse', 'no_text', `PDF has ${reports.length} page(s) and no text to index: ${said.join('; ')}`);
}
