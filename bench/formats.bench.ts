/**
 * Ingesting the rendered formats (issue 36): for each, time per MB of DocQA's whole ingestion of a file
 * (unzip within bounds, convert, outline, blocks, exact token counts) against the library's own parse of
 * the same bytes in the same run — mammoth's conversion for Word, linkedom + Readability for a page,
 * yauzl's unzip + linkedom's parse of every chapter or slide for EPUB and PowerPoint. The files are made
 * here from real prose (the Markdown corpus, English and Chinese), large enough that a run is not all
 * start-up: a Word file of ~2,000 paragraphs, a 60-chapter book, a 1 MB page, a 300-slide deck.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import mammoth from 'mammoth';
import yauzl from 'yauzl';
import { ingestBytes } from '../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS } from '../src/index/model';
import { parseHtml, parseXml } from '../src/index/parse/html-dom';
import { docx, escapeXml, makeZip, slideXml, wordParagraph, xhtml } from '../test/hostile-zips';
import type { BenchRow } from './report';

const CORPUS = path.join(__dirname, '..', '..', 'shared', 'corpus', 'markdown');
const FALLBACK = path.join(__dirname, '..', 'test', 'fixtures', 'markdown');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}

/** Real paragraphs (no headings, code or tables), in a fixed order. */
function paragraphs(n: number): string[] {
  const files = walk(fs.existsSync(CORPUS) ? CORPUS : FALLBACK).sort();
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const text = fs.readFileSync(files[i % files.length]!, 'utf8');
    for (const p of text.split(/\n\s*\n/)) if (/^[^#|`<>\-*\d\s]/.test(p) && p.length > 80 && p.length < 1500) out.push(`${p.replace(/\s+/g, ' ')} (${out.length})`);
    if (i > files.length * 50) break;
  }
  return out.slice(0, n);
}

const heading = (t: string) => `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>${escapeXml(t)}</w:t></w:r></w:p>`;

function wordFile(ps: string[]): Buffer {
  return docx(ps.map((p, i) => (i % 20 === 0 ? heading(`Part ${i / 20 + 1}`) : '') + wordParagraph(escapeXml(p))).join(''));
}

function book(ps: string[], chapters: number): Buffer {
  const per = Math.ceil(ps.length / chapters);
  const items = Array.from({ length: chapters }, (_, c) => ({ name: `OEBPS/ch${c + 1}.xhtml`, data: xhtml(`<h1>Chapter ${c + 1}</h1>${ps.slice(c * per, (c + 1) * per).map((p) => `<p>${escapeXml(p)}</p>`).join('')}`) }));
  const manifest = items.map((_, c) => `<item id="c${c + 1}" href="ch${c + 1}.xhtml" media-type="application/xhtml+xml"/>`).join('');
  const spine = items.map((_, c) => `<itemref idref="c${c + 1}"/>`).join('');
  return makeZip([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    { name: 'META-INF/container.xml', data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>' },
    { name: 'OEBPS/content.opf', data: `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Bench book</dc:title></metadata><manifest>${manifest}</manifest><spine>${spine}</spine></package>` },
    ...items,
  ]);
}

function page(ps: string[]): Buffer {
  const body = ps.map((p, i) => (i % 15 === 0 ? `<h2>Section ${i / 15 + 1}</h2>` : '') + `<p>${escapeXml(p)}</p>`).join('\n');
  return Buffer.from(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bench page</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>Bench page</h1>${body}</article></main><footer>© 2026</footer></body></html>`);
}

function deck(ps: string[], slides: number): Buffer {
  const P = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
  const ids = Array.from({ length: slides }, (_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 2}"/>`).join('');
  const rels = Array.from({ length: slides }, (_, i) => `<Relationship Id="rId${i + 2}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide${i + 1}.xml"/>`).join('');
  return makeZip([
    { name: 'ppt/presentation.xml', data: `<?xml version="1.0"?><p:presentation ${P}><p:sldIdLst>${ids}</p:sldIdLst></p:presentation>` },
    { name: 'ppt/_rels/presentation.xml.rels', data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>` },
    ...Array.from({ length: slides }, (_, i) => ({ name: `ppt/slides/slide${i + 1}.xml`, data: slideXml(`Slide ${i + 1}`, escapeXml(ps[i % ps.length]!)) })),
  ]);
}

/** Every entry of a zip, inflated by yauzl (the unzip our parsers use). */
async function unzipAll(bytes: Buffer): Promise<Map<string, string>> {
  const zip = await (yauzl as unknown as { fromBufferPromise(b: Buffer, o: object): Promise<{ eachEntry(): AsyncIterable<{ fileName: string }>; openReadStreamPromise(e: unknown): Promise<AsyncIterable<Buffer>> }> }).fromBufferPromise(bytes, { lazyEntries: true });
  const out = new Map<string, string>();
  for await (const e of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(e)) chunks.push(c);
    out.set(e.fileName, Buffer.concat(chunks).toString('utf8'));
  }
  return out;
}

async function seconds(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
}

/** Best of three, interleaving ours and the library's (this machine's speed drifts). */
async function compare(name: string, file: string, bytes: Buffer, library: () => Promise<unknown>): Promise<BenchRow[]> {
  const ours = async () => {
    const r = await ingestBytes(file, bytes, { doc_id: 'd', source_label: 'bench', aliases: [] }, DEFAULT_INGEST_OPTIONS);
    if (!r.ok) throw new Error(`${file}: ${r.failure.message}`);
  };
  await ours();
  await library();
  let mine = Infinity;
  let lib = Infinity;
  for (let i = 0; i < 3; i++) {
    mine = Math.min(mine, await seconds(ours));
    lib = Math.min(lib, await seconds(library));
  }
  const mb = bytes.length / 1e6;
  return [{ name: `ingest.${name}.MBps_vs_library_parse`, value: mb / mine, unit: 'MB/s', floor: mb / lib, ratio: mine / lib }];
}

export async function formatsBench(): Promise<BenchRow[]> {
  const ps = paragraphs(2000);
  const rows: BenchRow[] = [];
  const word = wordFile(ps);
  rows.push(...(await compare(`docx.${ps.length}_paragraphs`, 'bench.docx', word, () => mammoth.convertToHtml({ buffer: word }))));
  const epub = book(ps, 60);
  rows.push(...(await compare('epub.60_chapters', 'bench.epub', epub, async () => {
    for (const [name, text] of await unzipAll(epub)) if (name.endsWith('.xhtml')) parseHtml(text);
  })));
  const html = page(ps.slice(0, 1200));
  rows.push(...(await compare('html.readability_page', 'bench.html', html, async () => new Readability(parseHtml(html.toString('utf8')) as unknown as ConstructorParameters<typeof Readability>[0]).parse())));
  const pptx = deck(ps, 300);
  rows.push(...(await compare('pptx.300_slides', 'bench.pptx', pptx, async () => {
    for (const [name, text] of await unzipAll(pptx)) if (name.startsWith('ppt/slides/')) parseXml(text);
  })));
  return rows;
}
