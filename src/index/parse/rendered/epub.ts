import type { ParsedDocument } from '../../blocks/parsed-document';
import type { BlockLocation } from '../../../shared/block-location';
import { EPUB, readEpubPackage } from '../epub-package';
import { type DomElement, parseHtml } from '../html-dom';
import { HtmlOutline, PART_ATTR } from '../html-outline';
import type { DocumentParser, ParseContext, RenderedDocument } from '../parser';
import { checkXmlPart } from '../xml-safety';
import { ZipArchive } from '../zip-archive';

/** A chapter's body, read as HTML (an e-book's XHTML, as reading systems show it). */
async function chapterBody(zip: ZipArchive, path: string): Promise<DomElement> {
  const xhtml = await zip.text(path);
  checkXmlPart(xhtml, path, EPUB);
  const doc = parseHtml(xhtml);
  return doc.body ?? doc.documentElement;
}

const at = (chapter: number) => (first: number, last: number): BlockLocation => ({ kind: 'chapter', chapter, first, last });
const HEADINGS = 'h1, h2, h3, h4, h5, h6';

/**
 * An e-book in reading order (the package's spine): each content document is chapter N (its position in
 * the spine), its headings are sections; a chapter without headings that the table of contents names
 * starts a section with that name. The book's title and authors come from its package metadata.
 */
async function read(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument & { authors: string[] }> {
  ctx.signal?.throwIfAborted();
  const zip = await ZipArchive.open(bytes, EPUB);
  try {
    const pkg = await readEpubPackage(zip);
    const outline = new HtmlOutline();
    for (const [i, item] of pkg.spine.entries()) {
      if (!item.readable) continue;
      ctx.signal?.throwIfAborted();
      const body = await chapterBody(zip, item.path);
      const named = pkg.toc.get(item.path);
      if (named && !body.querySelector(HEADINGS)) outline.section(named.title, named.depth, { kind: 'chapter', chapter: i + 1, first: 1, last: 1 });
      outline.walk({ root: body, at: at(i + 1) });
    }
    return { format: 'epub', title: pkg.title, authors: pkg.authors, sections: outline.sections, units: outline.units, encoding: null, pageCount: null };
  } finally {
    zip.close();
  }
}

export const parser: DocumentParser = {
  format: 'epub',
  extensions: ['.epub'],
  parse: read,
  async render(bytes, ctx, location): Promise<RenderedDocument> {
    const zip = await ZipArchive.open(bytes, EPUB);
    try {
      const pkg = await readEpubPackage(zip);
      const n = location.kind === 'chapter' ? Math.min(Math.max(1, location.chapter), pkg.spine.length) : pkg.spine.findIndex((s) => s.readable) + 1;
      const item = pkg.spine[n - 1]!;
      const body = item.readable ? await chapterBody(zip, item.path) : parseHtml('<body></body>').body!;
      new HtmlOutline().walk({ root: body, at: at(n) });
      return { html: `<section ${PART_ATTR}="${n}">${body.innerHTML}</section>`, parts: pkg.spine.length };
    } finally {
      zip.close();
    }
  },
};
