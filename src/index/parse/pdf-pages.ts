import { IngestError } from '../../common/errors';
import type { UnreadPage } from '../../shared/document';
import type { Line, PageBox } from './pdf-lines';
import type { PdfPageRead } from './pdf-page-read';
import { judgeText } from './pdf-text-quality';

/**
 * What became of each page of a PDF. `no_text_layer`: no text, no field or annotation text: in a file
 * that holds images (imageXObjects), a scanned page, what OCR would read (issue 36 builds on this);
 * otherwise a blank one. `unreadable`: a text layer that is glyph codes, not text (its readable lines
 * may still be kept). `broken`: pdf.js could not read the page.
 */
export type PageStatus = 'text' | 'no_text_layer' | 'unreadable' | 'broken';

export interface PdfPageReport {
  page: number;
  status: PageStatus;
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
      if (status === 'text' && lines.length === 0 && extras.length === 0) status = 'no_text_layer';
    }
    out.lines.push(lines);
    out.extras.push(extras);
    out.reports.push({ page: r.page, status, reason });
  }
  return out;
}

/** The pages that are images without text, whether OCR read them (`ocr`), and the file's name for the words. */
export interface ScanState {
  ocr: boolean;
  pages: readonly number[];
  /** Of those, the ones OCR (on) did not read, and why. */
  unread: readonly UnreadPage[];
  name: string;
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

export const pagesWord = (pages: readonly number[]) => `${pages.length === 1 ? 'page' : 'pages'} ${pageRanges(pages)}`;

/** Pages whose text is not indexed although they have some: named in a partial document. */
export function unreadPages(reports: readonly PdfPageReport[]): UnreadPage[] {
  return reports
    .filter((r) => r.status === 'unreadable' || r.status === 'broken')
    .map((r) => (r.status === 'broken' ? { page: r.page, code: 'corrupt', reason: `the page is damaged: ${r.reason}` } : { page: r.page, code: 'no_text', reason: `its text layer is unreadable: ${r.reason}` }));
}

/** Why a page that is an image without text was not read while OCR is off (the words partialFailure looks for). */
export const NEEDS_OCR_REASON = 'it is an image without text (a scan); turn on OCR (docqa.ingest.ocr, DOCQA_INGEST_OCR=1 for the CLI) to read it';

/** The image-only pages left unread because OCR is off. */
export function needsOcrPages(pages: readonly number[]): UnreadPage[] {
  return pages.map((page) => ({ page, code: 'no_text', reason: NEEDS_OCR_REASON, image_only: true }));
}

/** "pages 3–40 of notes.pdf are images without text; turn on OCR to read them": what the user and the model are told. */
export function needsOcrWords(pages: readonly number[], name: string): string {
  return `${pagesWord(pages)} of ${name} ${pages.length === 1 ? 'is an image' : 'are images'} without text; turn on OCR to read ${pages.length === 1 ? 'it' : 'them'} (the setting docqa.ingest.ocr; DOCQA_INGEST_OCR=1 for the CLI)`;
}

/**
 * The failure of a PDF none of whose pages gave text, saying what each kind of page held: a scan (needs
 * OCR) only when the file holds images (`images`, imageXObjects); glyph codes; pages pdf.js could not
 * read; blank pages; and text that was there but is not indexed (`furniture`: pages whose only text was
 * page numbers).
 */
export function noTextFailure(reports: readonly PdfPageReport[], images: number, furniture: readonly number[] = [], scans: ScanState = { ocr: false, pages: [], unread: [], name: '' }): IngestError {
  const by = (s: PageStatus) => reports.filter((r) => r.status === s).map((r) => r.page);
  const broken = by('broken');
  if (broken.length === reports.length && reports.length > 0) {
    return new IngestError('parse', 'corrupt', `PDF is damaged: no page could be read (page ${reports[0]!.page}: ${reports[0]!.reason})`);
  }
  const said: string[] = [];
  const bare = by('no_text_layer').filter((p) => !furniture.includes(p) && !scans.pages.includes(p));
  if (scans.pages.length && !scans.ocr) said.push(needsOcrWords(scans.pages, scans.name));
  const read = scans.pages.filter((p) => !scans.unread.some((u) => u.page === p));
  if (read.length && scans.ocr) said.push(`OCR found no text in the images of ${pagesWord(read)}`);
  if (scans.unread.length && scans.ocr) said.push(`${pagesWord(scans.unread.map((u) => u.page))} ${scans.unread.length === 1 ? 'was' : 'were'} not read: ${scans.unread[0]!.reason}`);
  if (bare.length && images > 0) said.push(`${pagesWord(bare)} ${bare.length === 1 ? 'has' : 'have'} no text layer and no image large enough to hold text`);
  const unreadable = reports.filter((r) => r.status === 'unreadable');
  if (unreadable.length) said.push(`the text layer of ${pagesWord(unreadable.map((r) => r.page))} is unreadable (${unreadable[0]!.reason})`);
  if (broken.length) said.push(`${pagesWord(broken)} could not be read (${reports.find((r) => r.status === 'broken')!.reason})`);
  if (furniture.length) said.push(`the only text of ${pagesWord(furniture)} is page numbers, which are not indexed`);
  if (bare.length && images === 0) said.push(`${pagesWord(bare)} ${bare.length === 1 ? 'has' : 'have'} no text and no form field or annotation text, and the file holds no image`);
  return new IngestError('parse', 'no_text', `PDF has ${reports.length} page(s) and no text to index: ${said.join('; ')}`);
}
