import type { SectionDraft, Unit, UnitKind } from '../blocks/parsed-document';
import { PREAMBLE_TITLE } from '../blocks/parsed-document';
import type { BlockLocation } from '../../shared/block-location';
import { type DomElement, type DomNode, isElement, TEXT_NODE } from './html-dom';

/**
 * The attribute that numbers a rendered document's content elements (1, 2, … per part): the parser
 * stamps it while it reads, and the document view highlights the elements a block's location names by
 * it. Parsing and rendering run this same walk over the same bytes, so the numbers agree.
 */
export const ELEMENT_ATTR = 'data-docqa-el';
/** The wrapper of one part (a chapter, a slide; 1 for a whole document) in a rendered view. */
export const PART_ATTR = 'data-docqa-part';

/** One rendered part: the element to walk, and how a run of its elements is located. */
export interface HtmlPart {
  root: DomElement;
  at(first: number, last: number): BlockLocation;
}

/** Not content: never read, never numbered. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base', 'svg', 'iframe', 'frame', 'object', 'embed', 'canvas', 'audio', 'video', 'button', 'input', 'select', 'textarea', 'nav', 'map']);
/** Phrasing content: part of the paragraph around it. */
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'br', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'img', 'ins', 'kbd', 'label', 'mark', 'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var', 'wbr', 'math']);
const HEADING = /^h([1-6])$/;
/** Read as one unit each, whatever they hold. */
const LEAF: Record<string, UnitKind> = { p: 'prose', pre: 'code', ul: 'list', ol: 'list', dl: 'list', table: 'table', blockquote: 'quote', figcaption: 'prose', address: 'prose', caption: 'prose', dt: 'prose', dd: 'prose' };
/** Containers deeper than this are read as one paragraph (a page of 10,000 nested divs must not overflow the stack). */
const MAX_DEPTH = 200;

const name = (el: DomElement) => el.localName.toLowerCase();
const skipped = (el: DomElement) => SKIP.has(name(el)) || el.getAttribute('hidden') !== null || el.getAttribute('aria-hidden') === 'true';

/** An element's text as read: `<br>` and nested blocks break lines, other white space collapses. */
export function readText(el: DomElement, exclude?: ReadonlySet<string>): string {
  const out: string[] = [];
  const stack: Array<DomNode | '\n'> = [el];
  while (stack.length) {
    const n = stack.pop()!;
    if (n === '\n') {
      out.push('\n');
      continue;
    }
    if (n.nodeType === TEXT_NODE) {
      // Line breaks in the source are white space; only <br> and blocks break a line.
      out.push((n.textContent ?? '').replace(/\s+/g, ' '));
      continue;
    }
    if (!isElement(n) || (n !== el && skipped(n))) continue;
    const tag = name(n);
    if (n !== el && exclude?.has(tag)) continue;
    if (tag === 'br') {
      out.push('\n');
      continue;
    }
    const block = n !== el && !INLINE.has(tag);
    if (block) stack.push('\n');
    for (let i = n.childNodes.length - 1; i >= 0; i--) stack.push(n.childNodes[i]!);
    if (block) stack.push('\n');
  }
  return out
    .join('')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l.length > 0)
    .join('\n');
}

const LISTS: ReadonlySet<string> = new Set(['ul', 'ol']);

const cellText = (el: DomElement) => readText(el).replace(/\n/g, ' ').replace(/\|/g, '\\|');

/** Rows of a table (not of tables inside it) as Markdown-style lines, the first row as its header. */
function tableText(table: DomElement): string {
  const rows: string[][] = [];
  const walk = (el: DomElement) => {
    for (const c of Array.from(el.children)) {
      const tag = name(c);
      if (tag === 'tr') rows.push(Array.from(c.children).filter((td) => ['td', 'th'].includes(name(td))).map(cellText));
      else if (['thead', 'tbody', 'tfoot'].includes(tag)) walk(c);
    }
  };
  walk(table);
  const kept = rows.filter((r) => r.some((c) => c.length > 0));
  if (kept.length === 0) return '';
  const width = Math.max(...kept.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  const lines = kept.map(line);
  if (kept.length > 1) lines.splice(1, 0, `|${' --- |'.repeat(width)}`);
  return lines.join('\n');
}

/** A list's items as `- item` / `1. item` lines, nested lists indented. */
function listText(list: DomElement, indent = ''): string {
  const lines: string[] = [];
  const ordered = name(list) === 'ol';
  let n = Number.parseInt(list.getAttribute('start') ?? '1', 10) || 1;
  for (const item of Array.from(list.children)) {
    const tag = name(item);
    if (tag === 'dt' || tag === 'dd') {
      const t = readText(item).replace(/\n/g, ' ');
      if (t) lines.push(`${indent}${tag === 'dd' ? '  ' : ''}${t}`);
      continue;
    }
    if (tag !== 'li') continue;
    const nested = Array.from(item.children).filter((c) => LISTS.has(name(c)));
    const own = readText(item, LISTS).replace(/\n/g, ' ');
    const marker = ordered ? `${n++}. ` : '- ';
    if (own) lines.push(`${indent}${marker}${own}`);
    for (const c of nested) {
      const sub = listText(c, `${indent}  `);
      if (sub) lines.push(sub);
    }
  }
  return lines.join('\n');
}

/** A footnote's link back to its reference (↩, ↑): an arrow, not text. */
const BACKLINK = /^\s*[↩↑⤴]\uFE0E?\uFE0F?\s*$/;

function dropBacklinks(root: DomElement): void {
  for (const a of Array.from(root.querySelectorAll('a'))) {
    if (a.getAttribute('role') === 'doc-backlink' || ((a.getAttribute('href') ?? '').startsWith('#') && BACKLINK.test(a.textContent ?? ''))) a.remove();
  }
}

function unitText(el: DomElement, kind: UnitKind): string {
  if (kind === 'code') return (el.textContent ?? '').replace(/^\n+|\s+$/g, '');
  if (kind === 'list' && name(el) !== 'li') return listText(el);
  if (kind === 'table') return tableText(el);
  return readText(el);
}

/**
 * Sections and units of rendered HTML, part after part (chapters of a book, slides of a deck): headings
 * become sections (their levels nest across parts, as a book's chapters do), paragraphs, lists, tables,
 * quotes and code become units, and every one of them is numbered with ELEMENT_ATTR. Loose text between
 * blocks is wrapped in a paragraph of its own, so it can be numbered and highlighted too.
 */
export class HtmlOutline {
  readonly sections: SectionDraft[] = [];
  readonly units: Unit[] = [];
  private stack: Array<{ level: number; index: number }> = [];
  private current = -1;
  private n = 0;
  private part: HtmlPart | null = null;

  /** Reads one part; returns how many elements it numbered. */
  walk(part: HtmlPart): number {
    dropBacklinks(part.root);
    this.part = part;
    this.n = 0;
    this.visit(part.root, 0);
    return this.n;
  }

  /** Starts a section that no heading names (an e-book chapter known only from its table of contents). */
  section(title: string, level: number, location: BlockLocation | null): void {
    while (this.stack.length && this.stack[this.stack.length - 1]!.level >= level) this.stack.pop();
    this.sections.push({ title, parent: this.stack.length ? this.stack[this.stack.length - 1]!.index : null, location });
    this.current = this.sections.length - 1;
    this.stack.push({ level, index: this.current });
  }

  private number(el: DomElement): number {
    this.n++;
    el.setAttribute(ELEMENT_ATTR, String(this.n));
    return this.n;
  }

  private emit(el: DomElement, kind: UnitKind): void {
    const text = unitText(el, kind);
    if (!text.trim()) return;
    const n = this.number(el);
    if (this.current < 0) {
      this.sections.push({ title: PREAMBLE_TITLE, parent: null, location: null });
      this.current = this.sections.length - 1;
    }
    this.units.push({ section: this.current, kind, text, location: this.part!.at(n, n) });
  }

  private heading(el: DomElement, level: number): void {
    const title = readText(el).replace(/\n/g, ' ');
    if (!title) return;
    const n = this.number(el);
    this.section(title, level, this.part!.at(n, n));
  }

  private hasBlocks(el: DomElement): boolean {
    return Array.from(el.children).some((c) => !skipped(c) && !INLINE.has(name(c)));
  }

  private visit(el: DomElement, depth: number): void {
    let run: DomNode[] = [];
    const flush = () => {
      const text = run.some((n) => (isElement(n) ? readText(n) : (n.textContent ?? '').trim()).length > 0);
      if (text) {
        const p = el.ownerDocument.createElement('p');
        el.insertBefore(p, run[0]!);
        for (const n of run) p.appendChild(n);
        this.emit(p, 'prose');
      }
      run = [];
    };
    for (const child of Array.from(el.childNodes)) {
      if (!isElement(child)) {
        if (child.nodeType === TEXT_NODE) run.push(child);
        continue;
      }
      if (skipped(child)) continue;
      const tag = name(child);
      if (INLINE.has(tag)) {
        run.push(child);
        continue;
      }
      flush();
      const h = HEADING.exec(tag);
      if (h) this.heading(child, Number(h[1]));
      else if (LEAF[tag]) this.emit(child, LEAF[tag]);
      else if (depth < MAX_DEPTH && this.hasBlocks(child)) this.visit(child, depth + 1);
      else this.emit(child, 'prose');
    }
    flush();
  }
}
