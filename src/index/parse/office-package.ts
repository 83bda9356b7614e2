import { IngestError } from '../../common/errors';
import { firstDescendant, parseXml } from './html-dom';
import { checkXmlPart } from './xml-safety';
import type { ZipArchive } from './zip-archive';

/** An OLE compound file: Office 97–2003 (.doc, .ppt), or an encrypted Office file, which Office writes in one. */
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/**
 * Refuses, in words, the two files that most often carry an Office Open XML name without being one: a
 * password-protected document, and the old binary format saved under the new extension.
 */
export function refuseOle(bytes: Uint8Array, what: string, oldFormat: string, ext: string): void {
  if (!OLE_MAGIC.every((b, i) => bytes[i] === b)) return;
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(Buffer.from('EncryptedPackage', 'utf16le'))) {
    throw new IngestError('parse', 'encrypted', `this ${what} is password-protected: save it without a password to index it`);
  }
  throw new IngestError('parse', 'unsupported_format', `this is an old ${oldFormat} file with a ${ext} name: open it in Office or LibreOffice and save it as ${ext}`);
}

/** An XML part, checked (xml-safety.ts) and parsed. */
export async function xmlPart(zip: ZipArchive, name: string, what: string) {
  const xml = await zip.text(name);
  checkXmlPart(xml, name, what);
  return parseXml(xml);
}

/** The title in an Office file's properties (docProps/core.xml), if it has one. */
export async function propertyTitle(zip: ZipArchive, what: string): Promise<string | null> {
  if (!zip.has('docProps/core.xml')) return null;
  const el = firstDescendant((await xmlPart(zip, 'docProps/core.xml', what)).documentElement, 'dc:title');
  const title = (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
  return title || null;
}

/** `Relationship` targets of a .rels part by Id, resolved against `base` (the folder of the part they belong to). */
export async function relationships(zip: ZipArchive, relsPart: string, base: string, what: string): Promise<Map<string, { target: string; type: string }>> {
  const out = new Map<string, { target: string; type: string }>();
  if (!zip.has(relsPart)) return out;
  const doc = await xmlPart(zip, relsPart, what);
  for (const r of Array.from(doc.documentElement.children)) {
    const id = r.getAttribute('Id');
    const target = r.getAttribute('Target');
    if (!id || !target || r.getAttribute('TargetMode') === 'External') continue;
    out.set(id, { target: resolvePart(base, target), type: r.getAttribute('Type') ?? '' });
  }
  return out;
}

/** A part name from a relative reference inside a package (`../notesSlides/notesSlide1.xml` from `ppt/slides`). */
export function resolvePart(base: string, ref: string): string {
  const clean = decodeURIComponentSafe(ref.split('#')[0]!);
  const parts = clean.startsWith('/') ? [] : base.split('/').filter(Boolean);
  for (const seg of clean.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
