import { BULLET_GLYPH } from '../blocks/sentences';
import type { PageRegion } from '../../shared/block-location';

/** PDF text as lines and paragraphs: reading order, wrapped and hyphenated lines joined, page numbers and running headers dropped. */
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
  /** Where OCR read the line on the page (ocr-lines.ts); absent for a line of the text layer. */
  box?: PageRegion;
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
  /** Its lines' regions on the page, when OCR read them. */
  boxes?: PageRegion[];
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
    if (line.box) (cur!.boxes ??= []).push(line.box);
  });
  return out.filter((p) => !PAGE_NUMBER.test(p.text));
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

/** The page's box in the coordinates of its text (PDF user space): where its edges are. */
export interface PageBox {
  bottom: number;
  top: number;
}

/** A line can be running furniture only within this share of the page's height from its top or bottom edge. */
export const EDGE_BAND = 0.1;
/** …and only among the outermost lines: this many at each edge at most. */
export const EDGE_LINES = 2;

/** Indices of the outermost lines at the top and bottom of a page that lie in its edge bands. */
export function edgeLines(lines: readonly Line[], box: PageBox): number[] {
  const band = (box.top - box.bottom) * EDGE_BAND;
  const byHeight = lines.map((_, i) => i).sort((a, b) => lines[b]!.y - lines[a]!.y || a - b);
  const top = byHeight.slice(0, EDGE_LINES).filter((i) => lines[i]!.y >= box.top - band);
  const bottom = byHeight.slice(-EDGE_LINES).filter((i) => lines[i]!.y <= box.bottom + band);
  return [...new Set([...top, ...bottom])];
}

const norm = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * What makes two edge lines on different pages "the same line": their words exactly, or their words with
 * one number that counts the pages ("Page 3 of 40", "BIO 101 Lecture 5 - 3"): that number minus the page
 * number is the same on every page. Numbers that merely differ ("Balance due: 1,204.50 EUR" on one page,
 * "980.10 EUR" on the next) are content.
 */
export function runningKeys(text: string, page: number): string[] {
  const t = norm(text);
  const keys = [`=${t}`];
  const numbers = [...t.matchAll(/\d+/g)];
  for (const [i, m] of numbers.entries()) {
    // A number glued to others by a separator ("1,204.50", "2024-03-01") is an amount or a date, not a page counter.
    const before = t[m.index! - 1];
    const after = t[m.index! + m[0].length];
    if ((before && /[.,:/]/.test(before) && /\d/.test(t[m.index! - 2] ?? '')) || (after && /[.,:/]/.test(after) && /\d/.test(t[m.index! + m[0].length + 1] ?? ''))) continue;
    const offset = Number(m[0]) - page;
    keys.push(`${i}@${offset}:${t.slice(0, m.index)}#${t.slice(m.index! + m[0].length)}`);
  }
  return keys;
}

/**
 * Running headers and footers (the course or journal, the chapter, "Page 3 of 40", a download stamp) are
 * printed on every page; kept, they open every page's first block and match every search for the
 * course's name. A line is dropped as one only when all of these hold: it is among the two outermost
 * lines at the top or bottom of its page and within a tenth of the page's height of that edge; the same
 * line (runningKeys: the same words, a page counter aside) is there on at least half of the pages with
 * text, and three at least; it is set no larger than the body text (a heading that repeats, "Review
 * questions", is larger and stays); and it is not all the text its page has. Returns how many lines
 * were dropped on each page.
 */
export function dropRunningLines(pages: Line[][], boxes: readonly PageBox[]): number[] {
  const dropped = pages.map(() => 0);
  const withText = pages.filter((p) => p.length > 0).length;
  if (withText < 3) return dropped;
  const body = bodySize(pages);
  const candidates = pages.map((lines, p) => edgeLines(lines, boxes[p]!).filter((i) => lines[i]!.size <= body + 0.5));
  const pagesWith = new Map<string, number>();
  candidates.forEach((idx, p) => {
    for (const k of new Set(idx.flatMap((i) => runningKeys(pages[p]![i]!.text, p + 1)))) pagesWith.set(k, (pagesWith.get(k) ?? 0) + 1);
  });
  const min = Math.max(3, Math.ceil(withText / 2));
  candidates.forEach((idx, p) => {
    const lines = pages[p]!;
    const drop = new Set(idx.filter((i) => runningKeys(lines[i]!.text, p + 1).some((k) => pagesWith.get(k)! >= min)));
    if (drop.size === 0 || drop.size === lines.length) return;
    lines.splice(0, lines.length, ...lines.filter((_, i) => !drop.has(i)));
    dropped[p] = drop.size;
  });
  return dropped;
}
