import { IngestError } from '../../common/errors';
import { BULLET_GLYPH } from '../blocks/sentences';

/** PDF text as lines and paragraphs: reading order, wrapped and hyphenated lines joined, page numbers and running headers dropped, garbled text refused. */
export interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

export interface Line {
  text: string;
  y: number;
  size: number;
}

export const CJK = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]/u;

export function isCjk(ch: string | undefined): boolean {
  return ch !== undefined && CJK.test(ch);
}

/** A line that opens a list item: a bullet glyph, or a dash and a space ("- ", "– "). */
export const LIST_ITEM = new RegExp(`${BULLET_GLYPH.source}|^[-–][ \\t]+\\S`, 'u');

/** Joins two wrapped lines: repairs hyphenation, adds no space between CJK characters. */
export function joinWrapped(a: string, b: string): string {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  // "mem-" + "branes" is one word broken by the line; "Jean-" + "Paul" keeps its hyphen.
  if (/\p{L}-$/u.test(a)) return /^\p{Ll}/u.test(b) ? a.slice(0, -1) + b : a + b;
  const last = [...a.slice(-2)].pop();
  const first = [...b.slice(0, 2)][0];
  if (isCjk(last) && isCjk(first)) return a + b;
  if (/\s$/.test(a) || /^\s/.test(b)) return a + b;
  return `${a} ${b}`;
}

/** Items → lines, in content-stream order (pdf.js's reading order). */
export function toLines(items: readonly TextItem[]): Line[] {
  const lines: Line[] = [];
  let cur: Line | null = null;
  let lastEnd = 0;
  let breakNext = false;
  for (const it of items) {
    const size = Math.hypot(it.transform[2] ?? 0, it.transform[3] ?? 0) || it.height || 1;
    const x = it.transform[4] ?? 0;
    const y = it.transform[5] ?? 0;
    if (it.str.length > 0) {
      if (!cur || breakNext || Math.abs(y - cur.y) > Math.max(size, cur.size) * 0.5) {
        cur = { text: it.str, y, size };
        lines.push(cur);
      } else {
        const gap = x - lastEnd;
        const needsSpace = gap > size * 0.15 && !/\s$/.test(cur.text) && !/^\s/.test(it.str) && !(isCjk(cur.text.slice(-1)) && isCjk(it.str[0]));
        cur.text += (needsSpace ? ' ' : '') + it.str;
        cur.size = Math.max(cur.size, size);
      }
      lastEnd = x + it.width;
      breakNext = false;
    }
    if (it.hasEOL) breakNext = true;
  }
  for (const l of lines) l.text = l.text.replace(/\s+/g, ' ').trim();
  return lines.filter((l) => l.text.length > 0);
}

export function lowerQuartile(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 4)]!;
}

/** A paragraph-sized run of lines; `first` is the index of its first line on the page. */
export interface Paragraph {
  page: number;
  first: number;
  text: string;
}

/** Page numbers standing alone are running furniture, not content. */
export const PAGE_NUMBER = /^[-–—]?\s*\d{1,4}\s*[-–—]?$/u;

/**
 * Lines → paragraphs: a wider gap than usual, a jump upwards, a change of font size, or an outline
 * heading (`breaks`: a break before and after that line) starts a new one.
 */
export function toParagraphs(lines: readonly Line[], page: number, breaks: ReadonlySet<number>): Paragraph[] {
  // Line spacing of body text: a low quantile of the gaps between lines of one size, so that a short page
  // with a few paragraph gaps does not take a paragraph gap for the line spacing.
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const g = lines[i - 1]!.y - lines[i]!.y;
    if (g > 0 && Math.abs(lines[i - 1]!.size - lines[i]!.size) <= 0.5) gaps.push(g);
  }
  const typical = lowerQuartile(gaps);
  const out: Paragraph[] = [];
  let cur: Paragraph | undefined;
  lines.forEach((line, i) => {
    const prev = lines[i - 1];
    let breakHere = !cur || !prev || breaks.has(i) || breaks.has(i - 1);
    if (!breakHere && prev) {
      const gap = prev.y - line.y;
      const limit = typical !== null ? typical * 1.35 : prev.size * 1.8;
      // A line that opens with a bullet is a list item of its own, not the wrapped end of the one before.
      breakHere = gap <= 0 || gap > Math.max(limit, line.size * 1.05) || Math.abs(line.size - prev.size) > 1.5 || LIST_ITEM.test(line.text);
    }
    if (breakHere) {
      cur = { page, first: i, text: line.text };
      out.push(cur);
    } else {
      cur!.text = joinWrapped(cur!.text, line.text);
    }
  });
  return out.filter((p) => !PAGE_NUMBER.test(p.text));
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

/**
 * Fonts without a Unicode mapping come out as raw glyph codes (control characters). A text layer that is
 * mostly such codes is not text: the document fails rather than filling the index with noise; stray
 * codes in otherwise good text are removed.
 */
export function rejectGarbledText(pages: Line[][]): void {
  let total = 0;
  let garbled = 0;
  for (const lines of pages)
    for (const l of lines) {
      total += l.text.length;
      garbled += l.text.match(CONTROL)?.length ?? 0;
    }
  if (total > 0 && garbled / total > 0.2) {
    throw new IngestError('parse', 'no_text', `PDF text layer is unreadable: ${Math.round((100 * garbled) / total)}% of its characters are glyph codes without a Unicode mapping`);
  }
  for (const lines of pages) {
    for (const l of lines) l.text = l.text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();
    const kept = lines.filter((l) => l.text.length > 0);
    lines.splice(0, lines.length, ...kept);
  }
}

/** Sizes to the half point: what tells text set alike. */
export const sizeClass = (size: number) => Math.round(size * 2) / 2;

/** The size that sets the most characters: the body text's. */
export function bodySize(pages: readonly Line[][]): number {
  const chars = new Map<number, number>();
  for (const lines of pages) for (const l of lines) chars.set(sizeClass(l.size), (chars.get(sizeClass(l.size)) ?? 0) + l.text.length);
  let best = 0;
  let most = -1;
  for (const [size, n] of chars) if (n > most || (n === most && size < best)) [best, most] = [size, n];
  return best;
}

/** Lines this close to a page's top or bottom edge (by height on the page) can be running furniture. */
export const EDGE_LINES = 2;

/** Indices of the lines nearest the top and the bottom of a page. */
export function edgeLines(lines: readonly Line[]): number[] {
  const byHeight = lines.map((_, i) => i).sort((a, b) => lines[b]!.y - lines[a]!.y || a - b);
  return [...new Set([...byHeight.slice(0, EDGE_LINES), ...byHeight.slice(-EDGE_LINES)])];
}

/**
 * Running headers and footers (the course or journal, the chapter, "Page 3 of 40", a download stamp) are
 * printed on every page; kept, they open every page's first block and match every search for the
 * course's name. A line near the top or bottom edge whose text, digits aside, recurs there on at least
 * half of the pages (three at least), set no larger than the body text, is dropped. A heading that
 * repeats ("Review questions") is larger than the body and stays.
 */
export function dropRunningLines(pages: Line[][]): void {
  const withText = pages.filter((p) => p.length > 0).length;
  if (withText < 3) return;
  const body = bodySize(pages);
  const key = (l: Line) => l.text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');
  const candidates = pages.map((lines) => edgeLines(lines).filter((i) => lines[i]!.size <= body + 0.5));
  const pagesWith = new Map<string, number>();
  candidates.forEach((idx, p) => {
    for (const k of new Set(idx.map((i) => key(pages[p]![i]!)))) pagesWith.set(k, (pagesWith.get(k) ?? 0) + 1);
  });
  const min = Math.max(3, Math.ceil(withText / 2));
  candidates.forEach((idx, p) => {
    const lines = pages[p]!;
    const drop = new Set(idx.filter((i) => pagesWith.get(key(lines[i]!))! >= min));
    if (drop.size) lines.splice(0, lines.length, ...lines.filter((_, i) => !drop.has(i)));
  });
}
