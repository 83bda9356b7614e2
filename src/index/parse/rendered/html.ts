import { Readability } from '@mozilla/readability';
import { IngestError } from '../../../common/errors';
import { decodeText, looksBinary, strictDecode } from '../../sources/text-decode';
import { type DomDocument, type DomElement, parseHtml } from '../html-dom';
import { HtmlOutline, PART_ATTR } from '../html-outline';
import type { DocumentParser, ParseContext, RenderedDocument } from '../parser';

/** The charset a page declares in its first 2 KB (`<meta charset>` or the http-equiv form), lower-cased. */
function declaredCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 2048)).toString('latin1');
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * A saved page's text: a BOM decides, then the charset the page declares (a GBK course page says so),
 * then what the text decoder makes of it (UTF-8, GB18030, Big5). A declared charset that does not decode
 * the bytes is ignored rather than trusted into mojibake; nothing is decoded lossily.
 */
export function decodeHtml(bytes: Uint8Array): { text: string; encoding: string } {
  const bom = bytes[0] === 0xef || bytes[0] === 0xff || bytes[0] === 0xfe;
  const declared = bom ? null : declaredCharset(bytes);
  if (declared && declared !== 'utf-8' && declared !== 'utf8') {
    if (looksBinary(bytes)) throw new IngestError('decode', 'binary', 'file contains NUL bytes: binary data, not a web page');
    let label: string | null = null;
    try {
      label = new TextDecoder(declared).encoding;
    } catch {
      // An unknown label: decoded as an undeclared page below.
    }
    const text = label ? strictDecode(label, bytes) : null;
    if (text !== null) return { text, encoding: label! };
  }
  return decodeText(bytes);
}

/** Cookie and consent banners: never the page's content, and Readability keeps those its names miss. */
const CHROME = /cookie|consent|gdpr/i;
/** A banner is short; a long element with such a name is more likely content (an article about cookies). */
const CHROME_MAX_CHARS = 2_000;

function dropChrome(doc: DomDocument): void {
  for (const el of Array.from(doc.querySelectorAll('[id], [class], [role]'))) {
    const role = el.getAttribute('role') ?? '';
    const named = CHROME.test(el.getAttribute('id') ?? '') || CHROME.test(el.getAttribute('class') ?? '');
    if ((role === 'alertdialog' || named) && (el.textContent ?? '').length < CHROME_MAX_CHARS) el.remove();
  }
}

/**
 * Readability's time grows with the square of the page's depth (measured: 0.5 s at 100 levels, 3.3 s at
 * 400, 220 s at 2,000): a page nested deeper than any real one (tens of levels) is read from its body.
 */
const MAX_READABILITY_DEPTH = 150;

function depthOf(root: DomElement): number {
  let max = 0;
  const stack: Array<[DomElement, number]> = [[root, 1]];
  while (stack.length) {
    const [el, d] = stack.pop()!;
    if (d > max) max = d;
    if (max > MAX_READABILITY_DEPTH) return max;
    for (const c of Array.from(el.children)) stack.push([c, d + 1]);
  }
  return max;
}

/** The page's main content as HTML: Readability's article, else the body without its navigation and frame. */
function mainContent(doc: DomDocument): { html: string; title: string | null } {
  const pageTitle = doc.title.replace(/\s+/g, ' ').trim();
  dropChrome(doc);
  const body = doc.body?.innerHTML ?? '';
  // Readability rewrites the document it reads; the fallback reads a fresh copy of the body.
  const readable = doc.documentElement !== null && doc.body !== null && depthOf(doc.body) <= MAX_READABILITY_DEPTH;
  let article: ReturnType<Readability['parse']> = null;
  try {
    if (readable) article = new Readability(doc as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 200 }).parse();
  } catch {
    // Readability gives up on some broken markup (found by fuzzing: a page cut to "<"): the body is read instead.
  }
  const title = (article?.title ?? '').replace(/\s+/g, ' ').trim() || pageTitle || null;
  if (article?.content && (article.textContent ?? '').trim().length > 0) return { html: article.content, title };
  const bare = parseHtml(`<!DOCTYPE html><html><body>${body}</body></html>`);
  for (const el of Array.from(bare.querySelectorAll('header, footer, nav, aside, form'))) el.remove();
  return { html: bare.body?.innerHTML ?? '', title };
}

function toDom(bytes: Uint8Array, ctx: ParseContext): { dom: DomDocument; root: DomElement; title: string | null; encoding: string } {
  ctx.signal?.throwIfAborted();
  const { text, encoding } = decodeHtml(bytes);
  const { html, title } = mainContent(parseHtml(text));
  ctx.signal?.throwIfAborted();
  const dom = parseHtml(`<!DOCTYPE html><html><body><section ${PART_ATTR}="1">${html}</section></body></html>`);
  return { dom, root: dom.querySelector(`section[${PART_ATTR}]`)!, title, encoding };
}

function outline(root: DomElement): HtmlOutline {
  const out = new HtmlOutline();
  out.walk({ root, at: (first, last) => ({ kind: 'paragraphs', first, last }) });
  return out;
}

export const parser: DocumentParser = {
  format: 'html',
  extensions: ['.html', '.htm', '.xhtml'],
  async parse(bytes, ctx) {
    const { root, title, encoding } = toDom(bytes, ctx);
    const { sections, units } = outline(root);
    return { format: 'html', title, sections, units, encoding, pageCount: null };
  },
  async render(bytes, ctx): Promise<RenderedDocument> {
    const { root } = toDom(bytes, ctx);
    outline(root);
    return { html: root.outerHTML, parts: 1 };
  },
};
