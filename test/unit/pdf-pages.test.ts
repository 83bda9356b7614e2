/**
 * What the PDF parser keeps of each page, on small PDFs generated here (test/fixtures/pdf-writer.ts):
 * running headers and footers (issue 30 item 2), pages read one by one (item 3), and the words of its
 * failures (item 4). Each test is named after what broke.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';
import type { Document } from '../../src/shared/document';
import type { FailedDocument } from '../../src/shared/failed-document';
import { PdfWriter, pdfString, pdfUtf16, type SimplePage, textPdf } from '../fixtures/pdf-writer';
import { UNMERGED, tempDir } from '../helpers';

// This test process parses PDFs itself, as an ingestion worker does (pdf.js runs in workers only).
preparePdfThread();

const dir = tempDir();
let n = 0;
async function ingest(bytes: Buffer): Promise<{ ok: true; document: Document } | { ok: false; failure: FailedDocument }> {
  const file = path.join(dir, `doc-${n++}.pdf`);
  fs.writeFileSync(file, bytes);
  const r = await ingestFile(file, { doc_id: 'dtest', source_label: 'generated', aliases: [] }, UNMERGED);
  return r.ok ? { ok: true, document: r.document } : { ok: false, failure: r.failure };
}
async function indexed(bytes: Buffer): Promise<Document> {
  const r = await ingest(bytes);
  if (!r.ok) throw new Error(`expected it indexed, got ${JSON.stringify(r.failure)}`);
  return r.document;
}
async function failed(bytes: Buffer): Promise<FailedDocument> {
  const r = await ingest(bytes);
  if (r.ok) throw new Error(`expected a failure, got blocks ${JSON.stringify(r.document.blocks.map((b) => b.text))}`);
  return r.failure;
}
const texts = (d: Document) => d.blocks.map((b) => b.text).join('\n');
const pagesOf = (d: Document) => d.blocks.map((b) => (b.location.kind === 'page' ? b.location.page : 0));

/** A bank statement: a running header and a "Page N of 3" footer, and on each page a balance line near its bottom. */
function statement(balances: string[]): Buffer {
  return textPdf(
    balances.map((balance, i) => ({
      lines: [
        { text: 'ACME Bank - Account statement March 2025', y: 765, size: 9 },
        { text: `Transactions, part ${['one', 'two', 'three'][i]}: groceries, rent and travel.`, y: 700 },
        { text: `Balance due: ${balance} EUR`, y: 62 },
        { text: `Page ${i + 1} of ${balances.length}`, y: 30, size: 9 },
      ],
    })),
  );
}

describe('running headers and footers', () => {
  it('a statement keeps its "Balance due" line on every page: numbers that differ are content, a page counter is not', async () => {
    const d = await indexed(statement(['1,204.50', '1,180.25', '2,000.00']));
    const t = texts(d);
    for (const b of ['1,204.50', '1,180.25', '2,000.00']) assert.match(t, new RegExp(`Balance due: ${b} EUR`));
    assert.doesNotMatch(t, /ACME Bank|Page \d of 3/, 'the header and the page-counter footer are furniture');
    assert.equal((t.match(/Transactions, part/g) ?? []).length, 3);
  });

  it('a line that repeats near the edge with the same amount is kept when it is far from the edge', async () => {
    // The same words on every page, but in the middle of the page: the old rule took the two lowest lines wherever they were.
    const pages: SimplePage[] = [0, 1, 2].map((i) => ({
      lines: [
        { text: `Chapter ${['one', 'two', 'three'][i]} of the workbook.`, y: 600 },
        { text: 'Remember: show your working.', y: 420 },
        { text: 'Answers are due on Friday.', y: 400 },
      ],
    }));
    const d = await indexed(textPdf(pages));
    assert.equal((texts(d).match(/Remember: show your working\./g) ?? []).length, 3);
    assert.equal((texts(d).match(/Answers are due on Friday\./g) ?? []).length, 3);
  });

  it('the only text of a page is never taken for a footer, and a document of repeated lines is not emptied', async () => {
    const withFooter: SimplePage[] = [0, 1, 2].map((i) => ({ lines: [...(i < 2 ? [{ text: `Notes on lesson ${i + 1} and the lab that follows it.`, y: 700 }] : []), { text: 'Confidential - course use only', y: 30, size: 9 }] }));
    const d = await indexed(textPdf(withFooter));
    assert.deepEqual(
      d.blocks.filter((b) => b.text.includes('Confidential')).map((b) => b.location),
      [{ kind: 'page', page: 3 }],
      'dropped where the page has other text, kept where it is all the page has',
    );
    const only = await indexed(textPdf([0, 1, 2].map(() => ({ lines: [{ text: 'Draft - do not cite', y: 30, size: 9 }] }))));
    assert.deepEqual(pagesOf(only), [1, 2, 3]);
  });
});

describe('pages read one by one', () => {
  it('one page of unmapped glyph codes no longer fails the paper: the readable pages are indexed and the page is named', async () => {
    const pages: SimplePage[] = [1, 2, 3].map((p) => (p === 2 ? { lines: [], unmapped: [{ y: 700, glyphs: 400 }, { y: 680, glyphs: 400 }] } : { lines: [{ text: `Page ${p} explains osmosis in plant cells, part ${p}.`, y: 700 }] }));
    const d = await indexed(textPdf(pages));
    assert.deepEqual(pagesOf(d), [1, 3]);
    assert.deepEqual(
      d.unread_pages?.map((u) => [u.page, u.code]),
      [[2, 'no_text']],
    );
    assert.match(d.unread_pages![0]!.reason, /glyph codes without a Unicode mapping/);
  });

  it('stray glyph codes in good text are removed, not indexed', async () => {
    const d = await indexed(textPdf([{ lines: [{ text: 'Mitochondria make ATP for the cell.', y: 700 }], unmapped: [{ y: 680, glyphs: 3 }] }]));
    assert.equal(texts(d), 'Mitochondria make ATP for the cell.');
    assert.equal(d.unread_pages, undefined);
  });

  it('Urdu read as Latin-1 signs (a legacy font without a Unicode mapping) is refused as unreadable, not indexed as garbage', async () => {
    // What such a font's codes read as through WinAnsi: accented capitals and signs, no words.
    const garbage = '\xbf\xdb\xe2 \xd4\xdb \xaf\xf8 \xc7\xd3\xa7 \xe6\xdf\xbe \xcc\xa8\xd5 \xf1\xfe\xc2 \xb1\xd0\xe4 \xd9\xab \xc3\xee\xb5';
    const pages: SimplePage[] = [{ lines: [{ text: 'Urdu reading list, term two', y: 740 }] }, { lines: [0, 1, 2, 3].map((i) => ({ text: garbage, y: 700 - i * 14 })) }];
    const d = await indexed(textPdf(pages));
    assert.deepEqual(pagesOf(d), [1]);
    assert.match(d.unread_pages![0]!.reason, /Latin-1 signs and accented letters/);
    const all = await failed(textPdf([pages[1]!]));
    assert.equal(all.code, 'no_text');
    assert.match(all.message, /text layer of page 1 is unreadable/);
  });

  it('French and German with their accents are text, not glyph codes', async () => {
    const d = await indexed(textPdf([{ lines: [{ text: 'La mitochondrie produit l\xe9nergie; les \xe9l\xe8ves \xe9tudient la cellule \xe0 l\xe9cole.', y: 700 }, { text: 'Die Gr\xf6\xdfe der Zelle h\xe4ngt von ihrer Funktion ab, sagt die \xdcbung.', y: 680 }] }]));
    assert.equal(d.blocks.length, 1);
    assert.equal(d.unread_pages, undefined);
  });

  it('a filled-in form and its annotations are read: field values, a chosen option by its label, a comment, free text', async () => {
    const page: SimplePage = {
      lines: [
        { text: 'Certificate of completion', y: 740, size: 18 },
        { text: 'Awarded to:', y: 700 },
        { text: 'Course:', y: 670 },
      ],
      annots: (w, p) => [
        w.add(`<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V ${pdfString('Jane Learner')} /Rect [160 690 400 712] /P ${p} 0 R /F 4 >>`),
        w.add(`<< /Type /Annot /Subtype /Widget /FT /Ch /Ff 131072 /T (course) /Opt [[(bio101) (Cell Biology 101)] [(chem) (Chemistry)]] /V (bio101) /Rect [160 660 400 682] /P ${p} 0 R /F 4 >>`),
        w.add(`<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes /Rect [72 600 90 618] /P ${p} 0 R /F 4 >>`),
        w.add(`<< /Type /Annot /Subtype /Text /Contents ${pdfUtf16('Checked by the tutor')} /Rect [500 700 520 720] /F 4 >>`),
        w.add(`<< /Type /Annot /Subtype /FreeText /Contents ${pdfString('Grade: distinction')} /DA (/Helv 12 Tf 0 g) /Rect [72 560 300 590] /F 4 >>`),
      ],
    };
    const d = await indexed(textPdf([page], { catalog: (_, [annots]) => `/AcroForm << /Fields [${annots!.slice(0, 3).map((a) => `${a} 0 R`).join(' ')}] >>` }));
    const t = texts(d);
    for (const s of ['Jane Learner', 'Cell Biology 101', 'Checked by the tutor', 'Grade: distinction']) assert.ok(t.includes(s), `${s} in ${JSON.stringify(t)}`);
    assert.doesNotMatch(t, /bio101|\bYes\b/);
    assert.ok(d.blocks.every((b) => b.location.kind === 'page' && b.location.page === 1));
  });

  it('a form whose only text is in its fields is indexed, not called a scan', async () => {
    const page: SimplePage = { lines: [], annots: (w, p) => [w.add(`<< /Type /Annot /Subtype /Widget /FT /Tx /T (answer) /V ${pdfString('Osmosis moves water across a membrane.')} /Rect [72 600 500 640] /P ${p} 0 R /F 4 >>`)] };
    const d = await indexed(textPdf([page], { catalog: (_, [annots]) => `/AcroForm << /Fields [${annots![0]} 0 R] >>` }));
    assert.equal(texts(d), 'Osmosis moves water across a membrane.');
  });

  it('a file of which only the attachment is encrypted is read; one whose pages are encrypted is refused', async () => {
    const encrypted = (pages: 'Identity' | 'StdCF') => {
      const w = new PdfWriter();
      const catalog = w.reserve();
      const pagesObj = w.reserve();
      const font = w.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
      const content = w.stream(`BT /F1 12 Tf 72 700 Td ${pdfString('The lab report itself is not encrypted.')} Tj ET`);
      const page = w.add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`);
      w.set(pagesObj, `<< /Type /Pages /Kids [${page} 0 R] /Count 1 >>`);
      const data = w.stream(Buffer.alloc(64, 7), { dict: '/Type /EmbeddedFile' });
      const spec = w.add(`<< /Type /Filespec /F (data.csv) /UF (data.csv) /EF << /F ${data} 0 R >> >>`);
      w.set(catalog, `<< /Type /Catalog /Pages ${pagesObj} 0 R /Names << /EmbeddedFiles << /Names [(data.csv) ${spec} 0 R] >> >> >>`);
      // A user password is set (O and U do not match the empty one): pdf.js asks for it before anything.
      const hex = (b: number) => `<${Buffer.alloc(32, b).toString('hex')}>`;
      const enc = w.add(`<< /Filter /Standard /V 4 /R 4 /Length 128 /P -4 /O ${hex(1)} /U ${hex(2)} /CF << /StdCF << /CFM /AESV2 /AuthEvent /EFOpen /Length 16 >> >> /StmF /${pages} /StrF /${pages} /EFF /StdCF >>`);
      return w.bytes(catalog, `/Encrypt ${enc} 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]`);
    };
    assert.equal(texts(await indexed(encrypted('Identity'))), 'The lab report itself is not encrypted.');
    const refused = await failed(encrypted('StdCF'));
    assert.equal(refused.code, 'encrypted');
    assert.match(refused.message, /password-protected/);
  });
});

describe('failures say what happened', () => {
  it('"turn on OCR" only for the pages that draw an image; a blank page beside them and a blank PDF say they are blank', async () => {
    const scan = await failed(textPdf([{ lines: [], image: true }, { lines: [] }]));
    assert.equal(scan.code, 'no_text');
    assert.match(scan.message, /page 1 of doc-\d+\.pdf is an image without text; turn on OCR to read it/);
    assert.match(scan.message, /page 2 has no text layer and no image large enough to hold text/);
    const blank = await failed(textPdf([{ lines: [] }, { lines: [] }]));
    assert.doesNotMatch(blank.message, /OCR|scan/);
    assert.match(blank.message, /pages 1–2 have no text and no form field or annotation text, and the file holds no image/);
  });

  it('a PDF whose only text is page numbers says so instead of "no text content"', async () => {
    const f = await failed(textPdf([1, 2, 3].map((p) => ({ lines: [{ text: String(p), y: 30 }] }))));
    assert.equal(f.code, 'no_text');
    assert.match(f.message, /the only text of pages 1–3 is page numbers, which are not indexed/);
  });

  it('a circular page tree and a bad flate stream are corrupt, not internal', async () => {
    const circular = new PdfWriter();
    const cat = circular.reserve();
    const a = circular.reserve();
    const b = circular.reserve();
    circular.set(a, `<< /Type /Pages /Kids [${b} 0 R] /Count 1 >>`);
    circular.set(b, `<< /Type /Pages /Parent ${a} 0 R /Kids [${a} 0 R] /Count 1 >>`);
    circular.set(cat, `<< /Type /Catalog /Pages ${a} 0 R >>`);
    const loop = await failed(circular.bytes(cat));
    assert.equal(loop.code, 'corrupt', loop.message);
    assert.match(loop.message, /damaged/);

    const bad = new PdfWriter();
    const c2 = bad.reserve();
    const p2 = bad.reserve();
    const junk = bad.add(Buffer.concat([Buffer.from('<< /Length 12 /Filter /FlateDecode >>\nstream\n'), Buffer.from([0x78, 0x9c, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8]), Buffer.from('\nendstream')]));
    const page = bad.add(`<< /Type /Page /Parent ${p2} 0 R /MediaBox [0 0 612 792] /Contents ${junk} 0 R >>`);
    bad.set(p2, `<< /Type /Pages /Kids [${page} 0 R] /Count 1 >>`);
    bad.set(c2, `<< /Type /Catalog /Pages ${p2} 0 R >>`);
    const flate = await failed(bad.bytes(c2));
    assert.notEqual(flate.code, 'internal', flate.message);
  });
});
