import mammoth from 'mammoth';
import { IngestError, errorMessage } from '../../../common/errors';
import type { ParsedDocument } from '../../blocks/parsed-document';
import { type DomDocument, type DomElement, parseHtml } from '../html-dom';
import { propertyTitle, refuseOle } from '../office-package';
import { HtmlOutline, PART_ATTR, readText } from '../html-outline';
import type { DocumentParser, ParseContext, RenderedDocument } from '../parser';
import { checkXmlPart } from '../xml-safety';
import { ZipArchive } from '../zip-archive';

const WHAT = 'Word document';

/**
 * Word's own heading styles (mammoth's default map has Heading 1–6 in both cases), the names WPS and
 * Chinese templates give them, and Title/Subtitle kept as paragraphs we can find (the title of the
 * document when its properties have none).
 */
const STYLE_MAP = [
  ...[1, 2, 3, 4, 5, 6].map((n) => `p[style-name='标题 ${n}'] => h${n}:fresh`),
  "p[style-name='Title'] => p.docqa-title:fresh",
  "p[style-name='标题'] => p.docqa-title:fresh",
  "p[style-name='Subtitle'] => p.docqa-subtitle:fresh",
];

/** The parts mammoth reads, through our bounded archive; every XML part is checked before it is parsed. */
function mammothFile(zip: ZipArchive) {
  return {
    exists: (name: string) => zip.has(name),
    read: async (name: string, encoding?: string) => {
      if (!encoding) return zip.bytes(name);
      const text = await zip.text(name);
      checkXmlPart(text, name, WHAT);
      return text;
    },
    write: () => {
      throw new Error('read-only');
    },
    toArrayBuffer: () => Promise.reject(new Error('read-only')),
  };
}

/** Word → HTML through mammoth, then DOM: footnotes and endnotes under a heading of their own, without their ↑ links. */
async function toDom(bytes: Uint8Array, ctx: ParseContext): Promise<{ dom: DomDocument; zip: ZipArchive }> {
  ctx.signal?.throwIfAborted();
  refuseOle(bytes, WHAT, 'Word 97–2003 (.doc)', '.docx');
  const zip = await ZipArchive.open(bytes, WHAT);
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ file: mammothFile(zip) } as unknown as { buffer: Buffer }, {
      styleMap: STYLE_MAP,
      externalFileAccess: false,
      // Images are not read at all: their alt text stays, their bytes are never unpacked.
      convertImage: mammoth.images.imgElement(async (image) => {
        const alt = (image as { altText?: string }).altText;
        return { src: '', ...(alt ? { alt } : {}) };
      }),
    });
    html = result.value;
  } catch (err) {
    zip.close();
    if (err instanceof IngestError) throw err;
    const msg = errorMessage(err);
    if (/main document part|Could not find file/i.test(msg)) throw new IngestError('parse', 'corrupt', `not a valid Word document: ${msg} (a zip archive, but not a .docx)`, { cause: err });
    if (err instanceof RangeError) throw new IngestError('parse', 'corrupt', `this Word document is nested too deeply to read (${msg})`, { cause: err });
    throw new IngestError('parse', 'corrupt', `this Word document cannot be read: ${msg}`, { cause: err });
  }
  ctx.signal?.throwIfAborted();
  const dom = parseHtml(`<!DOCTYPE html><html><body><section ${PART_ATTR}="1">${html}</section></body></html>`);
  for (const a of Array.from(dom.querySelectorAll('a[href^="#footnote-ref-"], a[href^="#endnote-ref-"]'))) a.remove();
  for (const kind of ['footnote', 'endnote'] as const) {
    const first = dom.querySelector(`li[id^="${kind}-"]`);
    const list = first?.parentNode as DomElement | null;
    if (!list) continue;
    const h = dom.createElement('h1');
    h.textContent = kind === 'footnote' ? 'Footnotes' : 'Endnotes';
    (list.parentNode as DomElement | null)?.insertBefore(h, list);
  }
  return { dom, zip };
}

function outline(dom: DomDocument): HtmlOutline {
  const out = new HtmlOutline();
  out.walk({ root: dom.querySelector(`section[${PART_ATTR}]`)!, at: (first, last) => ({ kind: 'paragraphs', first, last }) });
  return out;
}

export const parser: DocumentParser = {
  format: 'docx',
  extensions: ['.docx'],
  async parse(bytes, ctx): Promise<ParsedDocument> {
    const { dom, zip } = await toDom(bytes, ctx);
    try {
      const { sections, units } = outline(dom);
      const styled = dom.querySelector('p.docqa-title');
      const firstHeading = dom.querySelector('h1, h2');
      const title = (await propertyTitle(zip, WHAT)) ?? (styled ? readText(styled).replace(/\n/g, ' ') : null) ?? (firstHeading ? readText(firstHeading).replace(/\n/g, ' ') : null);
      return { format: 'docx', title: title || null, sections, units, encoding: null, pageCount: null };
    } finally {
      zip.close();
    }
  },
  async render(bytes, ctx): Promise<RenderedDocument> {
    const { dom, zip } = await toDom(bytes, ctx);
    zip.close();
    outline(dom);
    const section = dom.querySelector(`section[${PART_ATTR}]`)!;
    return { html: section.outerHTML, parts: 1 };
  },
};
