import { IngestError } from '../../common/errors';
import type { SectionDraft, Unit } from '../blocks/parsed-document';
import { PREAMBLE_TITLE } from '../blocks/parsed-document';
import { BULLET_GLYPH } from '../blocks/sentences';
import type { DocumentParser } from './parser';
import { loadPdfJs, resolvePdfAssets } from './pdf-runtime';

interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

interface Line {
  text: string;
  y: number;
  size: number;
}

const CJK = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]/u;

function isCjk(ch: string | undefined): boolean {
  return ch !== undefined && CJK.test(ch);
}

/** A line that opens a list item: a bullet glyph, or a dash and a space ("- ", "– "). */
const LIST_ITEM = new RegExp(`${BULLET_GLYPH.source}|^[-–][ \\t]+\\S`, 'u');

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
function toLines(items: readonly TextItem[]): Line[] {
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

function lowerQuartile(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 4)]!;
}

/** A paragraph-sized run of lines; `first` is the index of its first line on the page. */
interface Paragraph {
  page: number;
  first: number;
  text: string;
}

/** Page numbers standing alone are running furniture, not content. */
const PAGE_NUMBER = /^[-–—]?\s*\d{1,4}\s*[-–—]?$/u;

/**
 * Lines → paragraphs: a wider gap than usual, a jump upwards, a change of font size, or an outline
 * heading (`breaks`: a break before and after that line) starts a new one.
 */
function toParagraphs(lines: readonly Line[], page: number, breaks: ReadonlySet<number>): Paragraph[] {
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

interface OutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

interface FlatEntry {
  title: string;
  parent: number | null;
  page: number | null;
  top: number | null;
  /** Line on `page` where the section starts (the heading line when it was found). */
  line: number;
}

type PdfDoc = Awaited<ReturnType<Awaited<ReturnType<typeof loadPdfJs>>['getDocument']>['promise']>;

async function resolveDest(doc: PdfDoc, dest: OutlineNode['dest']): Promise<{ page: number; top: number | null } | null> {
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

async function flattenOutline(doc: PdfDoc, nodes: readonly OutlineNode[], parent: number | null, out: FlatEntry[]): Promise<void> {
  for (const node of nodes) {
    const target = await resolveDest(doc, node.dest);
    const index = out.length;
    out.push({ title: node.title, parent, page: target?.page ?? null, top: target?.top ?? null, line: 0 });
    await flattenOutline(doc, node.items ?? [], index, out);
  }
}

/** Heading text compared loosely: width forms, case, spaces and a leading section number ignored. */
function headingKey(text: string): string {
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
function anchorEntries(entries: FlatEntry[], pages: readonly Line[][]): void {
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
function sectionFor(entries: readonly FlatEntry[], order: readonly number[], p: Paragraph): number | null {
  let found: number | null = null;
  for (const i of order) {
    const e = entries[i]!;
    if (e.page === null) continue;
    if (e.page < p.page || (e.page === p.page && e.line <= p.first)) found = i;
    else break;
  }
  return found;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;

/**
 * Fonts without a Unicode mapping come out as raw glyph codes (control characters). A text layer that is
 * mostly such codes is not text: the document fails rather than filling the index with noise; stray
 * codes in otherwise good text are removed.
 */
function rejectGarbledText(pages: Line[][]): void {
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
const sizeClass = (size: number) => Math.round(size * 2) / 2;

/** The size that sets the most characters: the body text's. */
function bodySize(pages: readonly Line[][]): number {
  const chars = new Map<number, number>();
  for (const lines of pages) for (const l of lines) chars.set(sizeClass(l.size), (chars.get(sizeClass(l.size)) ?? 0) + l.text.length);
  let best = 0;
  let most = -1;
  for (const [size, n] of chars) if (n > most || (n === most && size < best)) [best, most] = [size, n];
  return best;
}

/** Lines this close to a page's top or bottom edge (by height on the page) can be running furniture. */
const EDGE_LINES = 2;

/** Indices of the lines nearest the top and the bottom of a page. */
function edgeLines(lines: readonly Line[]): number[] {
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
function dropRunningLines(pages: Line[][]): void {
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

/** A heading is set this much larger than the body text. */
const HEADING_SCALE = 1.15;
const HEADING_MAX_CHARS = 80;
/**
 * Space above or below a heading, in lines of body text spacing (baseline to baseline). A double-spaced
 * page leaves its headings about 1.25 of its own spacing (file_pdfjs_test.pdf); a line OCR set larger
 * sits at exactly 1.
 */
const HEADING_ROOM = 1.2;
/** Deeper size steps all share the last level. */
const HEADING_LEVELS = 3;
/** One short unit repeated (`xyxyxyxyx`, `=-=-=-=-`), a tail of it allowed: decoration, not a title. */
const DECORATION = /^(.{1,3})\1{3,}.{0,2}$/su;

/**
 * Headings of a PDF without an outline, from type size: a line alone at its size (its neighbours are set
 * differently: a run of large lines is prose in a large font), larger than the body text, with more room
 * above or below it than the text's line spacing, short, with words, not ending like a sentence, not a
 * pattern repeated for decoration, and not the document's last line. Bigger type is a higher level.
 * Measured on the PDFs that have an outline, with the outline hidden and taken as the truth: 18 of the 19
 * lines found are outline entries (the 19th is the document's title); the entries not found are set in
 * body-size bold, which size cannot see (14 of file_pdfjs_test.pdf's 17).
 */
function headingsBySize(pages: readonly Line[][]): FlatEntry[] {
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
