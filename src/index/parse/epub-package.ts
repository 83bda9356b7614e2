import { IngestError } from '../../common/errors';
import { type DomElement, descendants, parseHtml } from './html-dom';
import { resolvePart, xmlPart } from './office-package';
import { checkXmlPart } from './xml-safety';
import type { ZipArchive } from './zip-archive';

export const EPUB = 'EPUB e-book';

export interface SpineItem {
  /** Part name in the archive. */
  path: string;
  /** A content document (XHTML) we read; images and other media in the spine are not. */
  readable: boolean;
}

/** What the package document (OPF) and the table of contents say: reading order, titles, author. */
export interface EpubPackage {
  title: string | null;
  authors: string[];
  /** The spine, in reading order: chapter N is spine[N - 1]. */
  spine: SpineItem[];
  /** The table of contents' first entry for each content document: its title and depth (1 = top). */
  toc: Map<string, { title: string; depth: number }>;
}

const text = (el: DomElement | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const dir = (part: string) => part.split('/').slice(0, -1).join('/');
const attr = (el: DomElement, name: string) => el.getAttribute(name) ?? '';

/** Refuses a book whose content documents are encrypted (DRM); obfuscated fonts alone are fine. */
async function refuseDrm(zip: ZipArchive): Promise<void> {
  if (!zip.has('META-INF/encryption.xml')) return;
  const doc = await xmlPart(zip, 'META-INF/encryption.xml', EPUB);
  const encrypted = descendants(doc.documentElement, 'CipherReference').map((c) => attr(c, 'URI'));
  if (encrypted.some((u) => /\.x?html?$/i.test(u))) throw new IngestError('parse', 'encrypted', 'this e-book is protected by DRM (its chapters are encrypted): DocQA can only read EPUBs without DRM');
}

/** EPUB 3's navigation document: the `toc` nav's links, with their nesting depth. */
function navEntries(html: string, base: string): Array<{ path: string; title: string; depth: number }> {
  const doc = parseHtml(html);
  const navs = Array.from(doc.querySelectorAll('nav'));
  const nav = navs.find((n) => /\btoc\b/.test(attr(n, 'epub:type'))) ?? navs[0];
  if (!nav) return [];
  return descendants(nav, 'a').flatMap((a) => {
    const href = attr(a, 'href');
    if (!href) return [];
    let depth = 0;
    for (let p = a.parentNode as DomElement | null; p && p !== nav; p = p.parentNode as DomElement | null) if (p.localName?.toLowerCase() === 'ol') depth++;
    return [{ path: resolvePart(base, href), title: text(a), depth: Math.max(1, depth) }];
  });
}

/** EPUB 2's NCX: nested navPoints with a label and a content src. */
function ncxEntries(root: DomElement, base: string): Array<{ path: string; title: string; depth: number }> {
  return descendants(root, 'navPoint').flatMap((p) => {
    const label = descendants(p, 'text')[0];
    const content = descendants(p, 'content')[0];
    if (!content) return [];
    let depth = 0;
    for (let q: DomElement | null = p; q && q.localName === 'navPoint'; q = q.parentNode as DomElement | null) depth++;
    return [{ path: resolvePart(base, attr(content, 'src')), title: text(label), depth }];
  });
}

/** Reads META-INF/container.xml, the package document it names, and the book's table of contents. */
export async function readEpubPackage(zip: ZipArchive): Promise<EpubPackage> {
  if (!zip.has('META-INF/container.xml')) throw new IngestError('parse', 'corrupt', 'not a valid EPUB e-book: it has no META-INF/container.xml (a zip archive, but not an EPUB)');
  await refuseDrm(zip);
  const container = await xmlPart(zip, 'META-INF/container.xml', EPUB);
  const rootfile = descendants(container.documentElement, 'rootfile').map((r) => attr(r, 'full-path')).find(Boolean);
  if (!rootfile) throw new IngestError('parse', 'corrupt', 'not a valid EPUB e-book: META-INF/container.xml names no package document');
  const opfPath = resolvePart('', rootfile);
  const opf = (await xmlPart(zip, opfPath, EPUB)).documentElement;
  const base = dir(opfPath);
  const manifest = new Map<string, { path: string; type: string; props: string }>();
  for (const item of descendants(opf, 'item')) manifest.set(attr(item, 'id'), { path: resolvePart(base, attr(item, 'href')), type: attr(item, 'media-type'), props: attr(item, 'properties') });
  const spineEl = descendants(opf, 'spine')[0];
  const spine: SpineItem[] = descendants(opf, 'itemref').flatMap((ref) => {
    const item = manifest.get(attr(ref, 'idref'));
    if (!item) return [];
    const readable = /x?html/i.test(item.type) && !/\bnav\b/.test(item.props);
    return [{ path: item.path, readable }];
  });
  if (!spine.some((s) => s.readable)) throw new IngestError('parse', 'corrupt', 'not a valid EPUB e-book: its spine lists no content document to read');

  let entries: Array<{ path: string; title: string; depth: number }> = [];
  const nav = [...manifest.values()].find((m) => /\bnav\b/.test(m.props));
  const ncx = manifest.get(spineEl ? attr(spineEl, 'toc') : '') ?? [...manifest.values()].find((m) => m.type === 'application/x-dtbncx+xml');
  if (nav && zip.has(nav.path)) {
    const html = await zip.text(nav.path);
    checkXmlPart(html, nav.path, EPUB);
    entries = navEntries(html, dir(nav.path));
  } else if (ncx && zip.has(ncx.path)) {
    entries = ncxEntries((await xmlPart(zip, ncx.path, EPUB)).documentElement, dir(ncx.path));
  }
  const toc = new Map<string, { title: string; depth: number }>();
  for (const e of entries) if (e.title && !toc.has(e.path)) toc.set(e.path, { title: e.title, depth: e.depth });

  const meta = descendants(opf, 'metadata')[0] ?? opf;
  const title = text(descendants(meta, 'dc:title')[0]) || null;
  const authors = descendants(meta, 'dc:creator').map((c) => text(c)).filter(Boolean);
  return { title, authors, spine, toc };
}
