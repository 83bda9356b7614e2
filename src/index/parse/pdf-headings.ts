import { bodySize, type Line, lowerQuartile, type Paragraph, sizeClass } from './pdf-lines';
import type { loadPdfJs } from './pdf-runtime';

/** Sections of a PDF: its outline (bookmarks) anchored on their heading lines, else headings from type size. */
export interface OutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

export interface FlatEntry {
  title: string;
  parent: number | null;
  page: number | null;
  top: number | null;
  /** Line on `page` where the section starts (the heading line when it was found). */
  line: number;
}

export type PdfDoc = Awaited<ReturnType<Awaited<ReturnType<typeof loadPdfJs>>['getDocument']>['promise']>;

export async function resolveDest(doc: PdfDoc, dest: OutlineNode['dest']): Promise<{ page: number; top: number | null } | null> {
  try {
    const explicit = typeof dest === 'string' ? await doc.getDestination(dest) : dest;
    if (!Array.isArray(explicit) || explicit.length === 0) return null;
    const ref = explicit[0];
    const pageIndex = typeof ref === 'number' ? ref : await doc.getPageIndex(ref as { num: number; gen: number });
    const kind = (explicit[1] as { name?: string } | undefined)?.name;
    const topArg = kind === 'XYZ' ? explicit[3] : kind === 'FitH' || kind === 'FitBH' ? explicit[2] : null;
    return { page: pageIndex + 1, top: typeof topArg === 'number' ? topArg : null };
  } catch {
    return null;
  }
}

export async function flattenOutline(doc: PdfDoc, nodes: readonly OutlineNode[], parent: number | null, out: FlatEntry[]): Promise<void> {
  for (const node of nodes) {
    const target = await resolveDest(doc, node.dest);
    const index = out.length;
    out.push({ title: node.title, parent, page: target?.page ?? null, top: target?.top ?? null, line: 0 });
    await flattenOutline(doc, node.items ?? [], index, out);
  }
}

/** Heading text compared loosely: width forms, case, spaces and a leading section number ignored. */
export function headingKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, '')
    .replace(/^(\d+[.)]?)+/u, '');
}

/**
 * Outline destinations are often only "top of page" (`FitH 794` for every entry on a page), so each entry
 * is anchored on the line of its page that carries its title, searching after the previous entry's
 * anchor; without such a line it falls back to the destination's height, or the top of the page.
 */
export function anchorEntries(entries: FlatEntry[], pages: readonly Line[][]): void {
  let prevPage = 0;
  let prevLine = -1;
  for (const e of entries) {
    if (e.page === null) continue;
    const lines = pages[e.page - 1] ?? [];
    const key = headingKey(e.title);
    const from = e.page === prevPage ? prevLine + 1 : 0;
    let found = -1;
    if (key.length > 0) {
      for (let i = from; i < lines.length && found < 0; i++) {
        const lk = headingKey(lines[i]!.text);
        if (lk.length > 0 && (lk === key || (lk.startsWith(key) && key.length >= 4) || (key.startsWith(lk) && lk.length >= 8))) found = i;
      }
    }
    if (found < 0) {
      const top = e.top;
      const byTop = top === null ? 0 : lines.findIndex((l) => l.y + l.size <= top + 2);
      found = Math.max(from === 0 ? 0 : from, byTop < 0 ? lines.length : byTop);
      if (e.page === prevPage && found < prevLine) found = prevLine;
    }
    e.line = found;
    prevPage = e.page;
    prevLine = found;
  }
}

/** A paragraph belongs to the last outline entry (in position, then outline order) that starts at or before it. */
export function sectionFor(entries: readonly FlatEntry[], order: readonly number[], p: Paragraph): number | null {
  let found: number | null = null;
  for (const i of order) {
    const e = entries[i]!;
    if (e.page === null) continue;
    if (e.page < p.page || (e.page === p.page && e.line <= p.first)) found = i;
    else break;
  }
  return found;
}

/** A heading is set this much larger than the body text. */
export const HEADING_SCALE = 1.15;
export const HEADING_MAX_CHARS = 80;
/**
 * Space above or below a heading, in lines of body text spacing (baseline to baseline). A double-spaced
 * page leaves its headings about 1.25 of its own spacing (file_pdfjs_test.pdf); a line OCR set larger
 * sits at exactly 1.
 */
export const HEADING_ROOM = 1.2;
/** Deeper size steps all share the last level. */
export const HEADING_LEVELS = 3;
/** One short unit repeated (`xyxyxyxyx`, `=-=-=-=-`), a tail of it allowed: decoration, not a title. */
export const DECORATION = /^(.{1,3})\1{3,}.{0,2}$/su;

/**
 * Headings of a PDF without an outline, from type size: a line alone at its size (its neighbours are set
 * differently: a run of large lines is prose in a large font), larger than the body text, with more room
 * above or below it than the text's line spacing, short, with words, not ending like a sentence, not a
 * pattern repeated for decoration, and not the document's last line. Bigger type is a higher level.
 * Measured on the PDFs that have an outline, with the outline hidden and taken as the truth: 18 of the 19
 * lines found are outline entries (the 19th is the document's title); the entries not found are set in
 * body-size bold, which size cannot see (14 of file_pdfjs_test.pdf's 17).
 */
export function headingsBySize(pages: readonly Line[][]): FlatEntry[] {
  const body = bodySize(pages);
  const sizeOf = (l: Line | undefined) => (l ? sizeClass(l.size) : -1);
  // Body line spacing; a heading has more room above or below it. (An OCR'd page sets some lines of its
  // text a size larger at random, at the spacing of the text around them.)
  const gaps: number[] = [];
  for (const lines of pages) for (let i = 1; i < lines.length; i++) if (sizeOf(lines[i]) === body && sizeOf(lines[i - 1]) === body && lines[i - 1]!.y > lines[i]!.y) gaps.push(lines[i - 1]!.y - lines[i]!.y);
  const spacing = lowerQuartile(gaps);
  const roomy = (upper: Line | undefined, lower: Line | undefined) => !upper || !lower || spacing === null || upper.y - lower.y <= 0 || upper.y - lower.y >= spacing * HEADING_ROOM;
  const found: Array<{ page: number; line: number; size: number; title: string }> = [];
  const lastPage = pages.reduce((last, lines, p) => (lines.length ? p : last), -1);
  pages.forEach((lines, p) => {
    lines.forEach((l, i) => {
      const size = sizeOf(l);
      if (size < body * HEADING_SCALE || size === sizeOf(lines[i - 1]) || size === sizeOf(lines[i + 1])) return;
      if (l.text.length > HEADING_MAX_CHARS || !/\p{L}{2}/u.test(l.text) || /[.!?。！？,，;；:：]$/u.test(l.text) || DECORATION.test(l.text)) return;
      if (p === lastPage && i === lines.length - 1) return;
      if (!roomy(lines[i - 1], l) && !roomy(l, lines[i + 1])) return;
      found.push({ page: p + 1, line: i, size, title: l.text });
    });
  });
  const sizes = [...new Set(found.map((h) => h.size))].sort((a, b) => b - a);
  const entries: FlatEntry[] = [];
  const stack: Array<{ level: number; index: number }> = [];
  for (const h of found) {
    const level = Math.min(sizes.indexOf(h.size) + 1, HEADING_LEVELS);
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    entries.push({ title: h.title, parent: stack.length ? stack[stack.length - 1]!.index : null, page: h.page, top: null, line: h.line });
    stack.push({ level, index: entries.length - 1 });
  }
  return entries;
}
