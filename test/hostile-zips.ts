/**
 * Hostile zip-based documents for the hostile-file and fuzz tests (issue 36 item 7), made at test time:
 * zip bombs (honest and lying about their size), archives of too many entries, XML entity expansion and
 * external entities, deep nesting, and files that claim to be a format they are not.
 */
import zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  data: Buffer | string;
  /** Stored uncompressed (EPUB's mimetype); deflated otherwise. */
  store?: boolean;
  /** Declares this uncompressed size instead of the real one (a lying archive). */
  declare?: number;
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = crcTable[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Deflated payloads and their CRCs by buffer: a bomb's 144 MB are deflated and summed once per test process. */
const packed = new WeakMap<Buffer, { data: Buffer; crc: number }>();
function pack(raw: Buffer, store: boolean): { data: Buffer; crc: number } {
  if (store) return { data: raw, crc: crc32(raw) };
  let p = packed.get(raw);
  if (!p) packed.set(raw, (p = { data: zlib.deflateRawSync(raw, { level: 9 }), crc: crc32(raw) }));
  return p;
}

/** A plain zip (no ZIP64): local headers, data, central directory. */
export function makeZip(entries: ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data, 'utf8');
    const { data, crc } = pack(raw, e.store === true);
    const name = Buffer.from(e.name, 'utf8');
    const size = e.declare ?? raw.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(e.store ? 0 : 8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, data);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt16LE(e.store ? 0 : 8, 10);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(data.length, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += 30 + name.length + data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dir, end]);
}

const CT = '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>';
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A minimal Word document whose body is `body` (w:p elements). */
export function docx(body: string | Buffer, declare?: number): Buffer {
  const doc = Buffer.isBuffer(body) ? body : `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>${body}</w:body></w:document>`;
  return makeZip([
    { name: '[Content_Types].xml', data: CT.replace('</Types>', '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>') },
    { name: '_rels/.rels', data: '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>' },
    { name: 'word/document.xml', data: doc, ...(declare !== undefined ? { declare } : {}) },
  ]);
}

/** Text as XML character data. */
export const escapeXml = (text: string) => text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

export const wordParagraph = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

/** A minimal EPUB 3 whose one chapter is `chapter` (XHTML). */
export function epub(chapter: string | Buffer, declare?: number): Buffer {
  return makeZip([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    { name: 'META-INF/container.xml', data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>' },
    { name: 'OEBPS/content.opf', data: '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x</dc:identifier><dc:title>Hostile book</dc:title><dc:language>en</dc:language></metadata><manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>' },
    { name: 'OEBPS/ch1.xhtml', data: chapter, ...(declare !== undefined ? { declare } : {}) },
  ]);
}

export const xhtml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title></head><body>${body}</body></html>`;

const P = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';

/** A minimal deck whose one slide is `slide` (slide XML). */
export function pptx(slide: string | Buffer, declare?: number): Buffer {
  return makeZip([
    { name: '[Content_Types].xml', data: CT },
    { name: 'ppt/presentation.xml', data: `<?xml version="1.0"?><p:presentation ${P}><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>` },
    { name: 'ppt/_rels/presentation.xml.rels', data: '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>' },
    { name: 'ppt/slides/slide1.xml', data: slide, ...(declare !== undefined ? { declare } : {}) },
  ]);
}

export const slideXml = (title: string, text: string) =>
  `<?xml version="1.0"?><p:sld ${P}><p:cSld><p:spTree><p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>${title}</a:t></a:r></a:p></p:txBody></p:sp><p:sp><p:nvSpPr><p:cNvPr id="3" name="Body"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;

const payloads = new Map<number, Buffer>();
/** `megabytes` of one repeated byte, one buffer per size: deflates to about a thousandth of it (a zip bomb's payload). */
export function bombPayload(megabytes: number): Buffer {
  let b = payloads.get(megabytes);
  if (!b) payloads.set(megabytes, (b = Buffer.alloc(megabytes * 2 ** 20, 0x20)));
  return b;
}

/** A billion-laughs prologue: ten levels of ten references, 10^9 "lol"s if a parser expanded them. */
export function billionLaughs(root: string, use: string): string {
  let dtd = '<!ENTITY lol0 "lol">';
  for (let i = 1; i <= 9; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  return `<?xml version="1.0"?><!DOCTYPE ${root} [${dtd}]>${use.replace('LAUGHS', '&lol9;')}`;
}

/** An external entity naming a file on this machine (XXE): never to be read. */
export function externalEntity(root: string, use: string): string {
  return `<?xml version="1.0"?><!DOCTYPE ${root} [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${use.replace('LAUGHS', '&xxe;')}`;
}

/** An Office 97–2003 compound file header (what a .doc renamed .docx starts with), optionally an encrypted package. */
export function oleFile(encrypted: boolean): Buffer {
  const head = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  return Buffer.concat([head, Buffer.alloc(504), encrypted ? Buffer.from('EncryptedPackage', 'utf16le') : Buffer.from('WordDocument', 'utf16le'), Buffer.alloc(512)]);
}
