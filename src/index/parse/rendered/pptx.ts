import { IngestError } from '../../../common/errors';
import type { ParsedDocument } from '../../blocks/parsed-document';
import { type DomElement, descendants, escapeHtml, parseHtml } from '../html-dom';
import { HtmlOutline, PART_ATTR } from '../html-outline';
import { propertyTitle, refuseOle, relationships, xmlPart } from '../office-package';
import type { DocumentParser, ParseContext, RenderedDocument } from '../parser';
import { ZipArchive } from '../zip-archive';

const WHAT = 'PowerPoint presentation';
const NOTES_LABEL = 'Speaker notes:';
/** Placeholders that repeat on every slide and say nothing of it. */
const FRAME = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg']);

interface Paragraph {
  text: string;
  level: number;
}

const name = (el: DomElement) => el.nodeName;

/** A text body's paragraphs: runs and fields (not the slide-number or date fields), line breaks as spaces. */
function paragraphs(body: DomElement): Paragraph[] {
  const out: Paragraph[] = [];
  for (const p of descendants(body, 'a:p')) {
    let text = '';
    const walk = (el: DomElement) => {
      for (const c of Array.from(el.children)) {
        const n = name(c);
        if (n === 'a:t') text += c.textContent ?? '';
        else if (n === 'a:br') text += ' ';
        else if (n === 'a:fld' && /^(slidenum|datetime)/.test(c.getAttribute('type') ?? '')) continue;
        else if (n !== 'a:pPr' && n !== 'a:rPr') walk(c);
      }
    };
    walk(p);
    text = text.replace(/\s+/g, ' ').trim();
    const level = Number.parseInt(descendants(p, 'a:pPr')[0]?.getAttribute('lvl') ?? '0', 10) || 0;
    if (text) out.push({ text, level });
  }
  return out;
}

/** One paragraph as a paragraph; more as a list nested by their outline level, as the slide shows them. */
function paragraphsHtml(ps: Paragraph[]): string {
  if (ps.length === 0) return '';
  if (ps.length === 1) return `<p>${escapeHtml(ps[0]!.text)}</p>`;
  let html = '';
  let depth = 0;
  for (const p of ps) {
    // One level deeper at most: a list opens inside the item before it.
    const level = Math.min(p.level, depth) + 1;
    if (level > depth) html += '<ul>';
    else {
      html += '</li>';
      for (; depth > level; depth--) html += '</ul></li>';
    }
    depth = level;
    html += `<li>${escapeHtml(p.text)}`;
  }
  html += '</li>';
  for (; depth > 1; depth--) html += '</ul></li>';
  return `${html}</ul>`;
}

function tableHtml(tbl: DomElement): string {
  const rows = descendants(tbl, 'a:tr').map((tr) => descendants(tr, 'a:tc').map((tc) => paragraphs(tc).map((p) => p.text).join(' ')));
  return `<table>${rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('')}</table>`;
}

/** Shapes and tables of a slide's tree in reading (document) order; an alternative's fallback copy is not read twice. */
function shapes(root: DomElement): DomElement[] {
  const out: DomElement[] = [];
  const walk = (el: DomElement) => {
    for (const c of Array.from(el.children)) {
      const n = name(c);
      if (n === 'p:sp' || n === 'a:tbl') out.push(c);
      else if (n !== 'mc:Fallback') walk(c);
    }
  };
  walk(root);
  return out;
}

const placeholder = (sp: DomElement) => descendants(sp, 'p:ph')[0]?.getAttribute('type') ?? null;

/** A slide as HTML: its title as the heading, its text boxes and tables, then its speaker notes. */
async function slideHtml(zip: ZipArchive, path: string, n: number): Promise<{ html: string; title: string | null }> {
  const slide = await xmlPart(zip, path, WHAT);
  let title: string | null = null;
  let body = '';
  for (const el of shapes(slide.documentElement)) {
    if (name(el) === 'a:tbl') {
      body += tableHtml(el);
      continue;
    }
    const type = placeholder(el);
    if (type && FRAME.has(type)) continue;
    const ps = paragraphs(el);
    if (title === null && (type === 'title' || type === 'ctrTitle') && ps.length) title = ps.map((p) => p.text).join(' ');
    else body += paragraphsHtml(ps);
  }
  const dir = path.split('/').slice(0, -1).join('/');
  const file = path.split('/').pop()!;
  const rels = await relationships(zip, `${dir}/_rels/${file}.rels`, dir, WHAT);
  const notesPart = [...rels.values()].find((r) => r.type.endsWith('/notesSlide'))?.target;
  let notes = '';
  if (notesPart && zip.has(notesPart)) {
    const doc = await xmlPart(zip, notesPart, WHAT);
    const ps = shapes(doc.documentElement)
      .filter((sp) => placeholder(sp) === 'body')
      .flatMap(paragraphs);
    if (ps.length) notes = `<blockquote class="docqa-notes"><p>${NOTES_LABEL}</p>${ps.map((p) => `<p>${escapeHtml(p.text)}</p>`).join('')}</blockquote>`;
  }
  return { html: `<section ${PART_ATTR}="${n}"><h1>${escapeHtml(title ?? `Slide ${n}`)}</h1>${body}${notes}</section>`, title };
}

/** The slides in the order the presentation lists them (ppt/presentation.xml), as part names. */
async function slideParts(zip: ZipArchive): Promise<string[]> {
  if (!zip.has('ppt/presentation.xml')) throw new IngestError('parse', 'corrupt', `not a valid ${WHAT}: it has no ppt/presentation.xml (a zip archive, but not a .pptx)`);
  const pres = await xmlPart(zip, 'ppt/presentation.xml', WHAT);
  const rels = await relationships(zip, 'ppt/_rels/presentation.xml.rels', 'ppt', WHAT);
  return descendants(pres.documentElement, 'p:sldId').flatMap((s) => {
    const r = rels.get(s.getAttribute('r:id') ?? '');
    return r && zip.has(r.target) ? [r.target] : [];
  });
}

/** Every slide, as one HTML document of `<section data-docqa-part="N">` (what is parsed and what the view shows). */
async function deckHtml(bytes: Uint8Array, ctx: ParseContext): Promise<{ html: string; title: string | null; slides: number }> {
  ctx.signal?.throwIfAborted();
  refuseOle(bytes, WHAT, 'PowerPoint 97–2003 (.ppt)', '.pptx');
  const zip = await ZipArchive.open(bytes, WHAT);
  try {
    const parts = await slideParts(zip);
    let html = '';
    let first: string | null = null;
    for (const [i, part] of parts.entries()) {
      ctx.signal?.throwIfAborted();
      const s = await slideHtml(zip, part, i + 1);
      first ??= s.title;
      html += s.html;
    }
    return { html, title: (await propertyTitle(zip, WHAT)) ?? first, slides: parts.length };
  } finally {
    zip.close();
  }
}

function walkSlides(html: string): { outline: HtmlOutline; root: DomElement } {
  const dom = parseHtml(`<!DOCTYPE html><html><body>${html}</body></html>`);
  const outline = new HtmlOutline();
  for (const section of Array.from(dom.querySelectorAll(`section[${PART_ATTR}]`))) {
    const slide = Number(section.getAttribute(PART_ATTR));
    outline.walk({ root: section, at: (first, last) => ({ kind: 'slide', slide, first, last }) });
  }
  return { outline, root: dom.body! };
}

/** A deck: one section per slide, titled by the slide's title, its text, tables and speaker notes as blocks. */
export const parser: DocumentParser = {
  format: 'pptx',
  extensions: ['.pptx'],
  async parse(bytes, ctx): Promise<ParsedDocument> {
    const deck = await deckHtml(bytes, ctx);
    if (deck.slides === 0) throw new IngestError('parse', 'empty', 'this presentation has no slides');
    const { outline } = walkSlides(deck.html);
    return { format: 'pptx', title: deck.title, sections: outline.sections, units: outline.units, encoding: null, pageCount: null };
  },
  async render(bytes, ctx): Promise<RenderedDocument> {
    const deck = await deckHtml(bytes, ctx);
    return { html: walkSlides(deck.html).root.innerHTML, parts: deck.slides };
  },
};
