/**
 * Hostile and odd files (issue 24 item 3), generated at test time (nothing large is checked in): each
 * document succeeds or fails on its own with a reason a person understands, the build finishes and
 * activates, and a question over what was indexed still works.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { makeCli } from './cli';
import { billionLaughs, bombPayload, docx, epub, externalEntity, pptx, slideXml, wordParagraph, xhtml } from '../hostile-zips';

interface Scan {
  documents: Array<{ path: string; blocks: number; title: string }>;
  failed_documents: Array<{ path: string; stage: string; code: string; message: string }>;
}

/** A minimal PDF of Helvetica text pages; `bomb` replaces page 1's content with a Flate-compressed stream. */
function pdf(pages: string[][], bomb?: Buffer): Buffer {
  const objs: Buffer[] = [Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'), Buffer.alloc(0)];
  const add = (b: string | Buffer) => (objs.push(Buffer.isBuffer(b) ? b : Buffer.from(b, 'latin1')), objs.length);
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids = pages.map((lines, i) => {
    const raw = i === 0 && bomb ? zlib.deflateSync(bomb) : Buffer.from(lines.map((l, j) => `BT /F1 12 Tf 72 ${720 - j * 16} Td (${l}) Tj ET`).join('\n'), 'latin1');
    const s = add(Buffer.concat([Buffer.from(`<< /Length ${raw.length}${i === 0 && bomb ? ' /Filter /FlateDecode' : ''} >>\nstream\n`), raw, Buffer.from('\nendstream')]));
    return add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${s} 0 R >>`);
  });
  objs[1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`);
  const parts = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objs.forEach((o, i) => {
    offsets.push(at);
    parts.push(Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from('\nendobj\n')]));
    at += parts[parts.length - 1]!.length;
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(Buffer.from(`xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const WORDS = ['light', 'water', 'carbon', 'sugar', 'leaf'];
type Expect = { ok: true; blocks?: number; minBlocks?: number; title?: string } | { ok: false; stage: string; code: string; message: RegExp };
interface Case {
  name: string;
  /** What is odd about it, for RELIABILITY.md. */
  what: string;
  bytes: () => string | Buffer;
  expect: Expect;
}

/** The table: what each hostile file is, and what the code decides about it (see text-decode.ts). */
const CASES: Case[] = [
  // Markdown nesting is bounded by markdown-it's nesting limit: the text stays, as flat prose blocks.
  { name: 'nested-list.md', what: 'a list nested 10,000 levels deep (Markdown)', bytes: () => '# Deep list\n\n' + '- '.repeat(10_000) + 'deep item\n', expect: { ok: true, minBlocks: 1, title: 'Deep list' } },
  { name: 'nested-quote.md', what: 'a quote nested 10,000 levels deep (Markdown)', bytes: () => '# Deep quote\n\n' + '>'.repeat(10_000) + ' deep quote text\n', expect: { ok: true, minBlocks: 1, title: 'Deep quote' } },
  { name: 'headings.md', what: '10,000 headings (Markdown)', bytes: () => Array.from({ length: 10_000 }, (_, i) => `${'#'.repeat((i % 6) + 1)} Heading ${i}\n\ntext ${i}\n`).join('\n'), expect: { ok: true, blocks: 10_000, title: 'Heading 0' } },
  // 50 MB on one line (under the 64 MB max_file_bytes): cut into blocks, not one 50 MB block.
  { name: 'one-line.txt', what: 'a 50 MB file on one line', bytes: () => 'word '.repeat(10 * 1024 * 1024), expect: { ok: true, minBlocks: 10_000 } },
  { name: 'nul.md', what: 'NUL bytes at the start', bytes: () => '# NUL\n\nbefore\u0000after\n', expect: { ok: false, stage: 'decode', code: 'binary', message: /NUL bytes: binary data, not text/ } },
  // The binary sniff reads the first 8 KB only: a NUL past it is kept as a character of the text.
  { name: 'late-nul.md', what: 'a NUL byte past the first 8 KB', bytes: () => '# Late NUL\n\n' + 'x'.repeat(9000) + '\u0000tail\n', expect: { ok: true, minBlocks: 1, title: 'Late NUL' } },
  { name: 'bad-utf8.md', what: 'invalid UTF-8', bytes: () => Buffer.concat([Buffer.from('# Bad\n\n'), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x80]), Buffer.from(' text\n')]), expect: { ok: false, stage: 'decode', code: 'encoding', message: /not valid UTF-8.*re-save the file as UTF-8/ } },
  // A lone surrogate encoded as UTF-8 (ED A0 80) is invalid UTF-8: nothing is decoded lossily.
  { name: 'lone-surrogate.md', what: 'a lone surrogate encoded in UTF-8', bytes: () => Buffer.concat([Buffer.from('# Lone\n\nbefore '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(' after\n')]), expect: { ok: false, stage: 'decode', code: 'encoding', message: /not valid UTF-8/ } },
  // Bidi controls are text: indexed as they are (the CLI's text output escapes them, JSON keeps them).
  { name: 'bidi.md', what: 'bidi override characters in the title and text', bytes: () => '# Bidi \u202eevil\u202c\n\nthe name gpj.exe \u202egpj.exe\u202c and \u2066isolate\u2069 text about bidirectional overrides\n', expect: { ok: true, blocks: 1, title: 'Bidi \u202eevil\u202c' } },
  { name: 'new\nline.md', what: 'a file name with a newline', bytes: () => '# Newline name\n\nnewline name content zebra\n', expect: { ok: true, blocks: 1, title: 'Newline name' } },
  { name: 'emoji 📚.md', what: 'a file name with an emoji', bytes: () => '# Emoji name\n\nemoji name content giraffe\n', expect: { ok: true, blocks: 1, title: 'Emoji name' } },
  { name: 'bad\nname.md', what: 'a file name with a newline, and invalid UTF-8 inside', bytes: () => Buffer.from([0x23, 0x20, 0xff, 0xfe, 0xfd, 0x0a]), expect: { ok: false, stage: 'decode', code: 'encoding', message: /not valid UTF-8/ } },
  { name: 'zero.pdf', what: 'a zero-byte PDF', bytes: () => '', expect: { ok: false, stage: 'read', code: 'empty', message: /file is empty \(0 bytes\)/ } },
  {
    name: 'pages-5000.pdf',
    what: 'a 5,000-page PDF',
    bytes: () => pdf(Array.from({ length: 5000 }, (_, i) => [`Chapter ${i + 1}: ${WORDS[i % 5]} ${'abcdefghij'.slice(i % 7)} study`, `The ${i}th note says chlorophyll ${i % 3 ? 'absorbs' : 'reflects'} light number ${i * 7}.`])),
    expect: { ok: true, minBlocks: 1000 },
  },
];

function writeCases(dir: string, cases: Case[]): void {
  for (const c of cases) fs.writeFileSync(path.join(dir, c.name), c.bytes());
}

function checkScan(scan: Scan, dir: string, cases: Case[]): void {
  for (const c of cases) {
    const file = path.join(dir, c.name);
    const doc = scan.documents.find((d) => d.path === file);
    const failed = scan.failed_documents.find((f) => f.path === file);
    const what = JSON.stringify(c.name);
    if (c.expect.ok) {
      assert.ok(doc, `${what} should be indexed, got ${JSON.stringify(failed)}`);
      if (c.expect.blocks !== undefined) assert.equal(doc.blocks, c.expect.blocks, what);
      if (c.expect.minBlocks !== undefined) assert.ok(doc.blocks >= c.expect.minBlocks, `${what}: ${doc.blocks} blocks`);
      if (c.expect.title !== undefined) assert.equal(doc.title, c.expect.title, what);
    } else {
      assert.ok(failed, `${what} should fail, got ${JSON.stringify(doc && { blocks: doc.blocks })}`);
      assert.deepEqual([failed.stage, failed.code], [c.expect.stage, c.expect.code], `${what}: ${failed.message}`);
      assert.match(failed.message, c.expect.message, what);
    }
  }
  assert.equal(scan.documents.length + scan.failed_documents.length, cases.length, 'every file has exactly one outcome');
}

describe('hostile and odd files', () => {
  it('each document succeeds or fails on its own with a clear reason; the build activates and search works', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    const dir = tempDir();
    writeCases(dir, CASES);
    // Each file a source of its own, so that the build's outcome names each one (a document's source alias
    // is its path): a `sources scan` first would parse the 5,000 pages and the 50 MB line once more.
    cli.json(['sources', 'add', ...CASES.map((c) => path.join(dir, c.name)), '--json']);
    const r = await cli.runAsync(['index', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const built = JSON.parse(r.stdout) as Pick<Scan, 'failed_documents'> & { state: string; activated: boolean };
    assert.equal(built.activated, true);
    assert.ok(['ready', 'ready_partial'].includes(built.state), built.state);
    const listed = cli.json<{ documents: Array<{ aliases: string[]; blocks: number; title: string }> }>(['tool', 'list_documents', '{}']);
    checkScan({ documents: listed.documents.map((d) => ({ path: d.aliases[0]!, blocks: d.blocks, title: d.title })), failed_documents: built.failed_documents }, dir, CASES);
    // `sources scan` walks a folder and keeps one line per file in its text output: newlines and bidi
    // controls in names and titles are escaped. The oddly named files only, in a folder of their own.
    const named = CASES.filter((c) => /\n|bidi|emoji/.test(c.name));
    const namedCli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    const namedDir = tempDir();
    writeCases(namedDir, named);
    namedCli.json(['sources', 'add', namedDir, '--json']);
    const text = await namedCli.runAsync(['sources', 'scan']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /new\\u000aline\.md\)\n/);
    assert.match(text.stdout, /FAILED {2}\S+bad\\u000aname\.md: decode\/encoding/);
    assert.match(text.stdout, /Bidi \\u202eevil\\u202c/);
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(text.stdout));
    assert.match(text.stdout, /emoji 📚\.md/);

    for (const term of ['giraffe', 'zebra', 'bidirectional', 'chlorophyll']) {
      const hits = cli.json<{ total_count: number }>(['tool', 'scan_term', JSON.stringify({ term })]);
      assert.ok(hits.total_count >= 1, term);
    }
    for (const c of CASES) {
      const outcome = c.expect.ok ? 'indexed on its own; the build activates' : `fails alone (${c.expect.stage}/${c.expect.code}) with a reason in words; the build activates`;
      recordTrials({ area: 'hostile input', fault: c.what, trials: 1, outcome }, __filename);
    }
  });

  it('Word files, e-books, decks and pages: a zip bomb of each zip format, XML entity expansion and a file that claims to be DOCX fail alone, in the worker pool; the real ones are indexed and searchable', async () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const copy = (name: string) => () => fs.readFileSync(fixture('formats', name));
    const cases: Case[] = [
      { name: 'guide.docx', what: 'a Word file with headings, tables and footnotes in English and Chinese', bytes: copy('photosynthesis.docx'), expect: { ok: true, minBlocks: 8, title: 'Photosynthesis Study Guide' } },
      { name: 'guide.epub', what: 'an EPUB e-book', bytes: copy('photosynthesis.epub'), expect: { ok: true, minBlocks: 7, title: 'Photosynthesis Study Guide' } },
      { name: 'course.html', what: 'a saved web page with a cookie banner, navigation and footer', bytes: copy('cell-biology-course.html'), expect: { ok: true, minBlocks: 5, title: 'Cell Respiration — BIO 110 Course Pages' } },
      { name: 'lecture.pptx', what: 'a slide deck with speaker notes', bytes: copy('respiration-slides.pptx'), expect: { ok: true, minBlocks: 5, title: 'Cell Respiration Lecture' } },
      { name: 'bomb.docx', what: 'a zip bomb (.docx): 144 MB of document.xml in a 140 KB file', bytes: () => docx(bombPayload(144)), expect: { ok: false, stage: 'parse', code: 'too_large', message: /would unpack to 144 MB .*zip bomb/ } },
      { name: 'bomb.epub', what: 'a zip bomb (.epub): a 144 MB chapter', bytes: () => epub(bombPayload(144)), expect: { ok: false, stage: 'parse', code: 'too_large', message: /would unpack to 144 MB .*zip bomb/ } },
      { name: 'bomb.pptx', what: 'a zip bomb (.pptx): a 144 MB slide', bytes: () => pptx(bombPayload(144)), expect: { ok: false, stage: 'parse', code: 'too_large', message: /would unpack to 144 MB .*zip bomb/ } },
      { name: 'lying-bomb.docx', what: 'a zip bomb that declares 4 KB and inflates to 64 MB (.docx)', bytes: () => docx(bombPayload(64), 4096), expect: { ok: false, stage: 'parse', code: 'too_large', message: /unpacks to more than the 4096 bytes its archive declares/ } },
      { name: 'laughs.docx', what: 'an XML entity expansion (billion laughs) in a Word file', bytes: () => docx(Buffer.from(billionLaughs('w:document', `<w:document ${W}><w:body>${wordParagraph('LAUGHS')}</w:body></w:document>`))), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /declares XML entities/ } },
      { name: 'xxe.epub', what: 'an external XML entity naming /etc/passwd in an e-book chapter', bytes: () => epub(externalEntity('html', xhtml('<p>LAUGHS</p>').replace(/^<\?xml[^>]*>/, ''))), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /declares XML entities/ } },
      { name: 'laughs.pptx', what: 'an XML entity expansion (billion laughs) in a slide', bytes: () => pptx(billionLaughs('p:sld', slideXml('T', 'LAUGHS').replace(/^<\?xml[^>]*>/, ''))), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /declares XML entities/ } },
      { name: 'fake.docx', what: 'a file that claims to be DOCX and is not (text renamed .docx)', bytes: () => 'quarterly notes, not a Word document\n', expect: { ok: false, stage: 'parse', code: 'corrupt', message: /not a valid Word document: it is not a zip archive/ } },
    ];
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    const dir = tempDir();
    writeCases(dir, cases);
    cli.json(['sources', 'add', dir, '--json']);
    const r = await cli.runAsync(['index', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const built = JSON.parse(r.stdout) as Scan & { state: string; activated: boolean };
    assert.equal(built.activated, true);
    assert.equal(built.state, 'ready_partial');
    const scan = JSON.parse((await cli.runAsync(['sources', 'scan', '--json'])).stdout) as Scan;
    checkScan(scan, dir, cases);
    for (const term of ['chlorophyll', '叶绿体', 'chemiosmosis', 'breakfast']) assert.ok(cli.json<{ total_count: number }>(['tool', 'scan_term', JSON.stringify({ term })]).total_count >= 1, term);
    for (const absent of ['cookies', 'root:x:0', 'lollol']) assert.equal(cli.json<{ total_count: number }>(['tool', 'scan_term', JSON.stringify({ term: absent })]).total_count, 0, absent);
    for (const c of cases) {
      const outcome = c.expect.ok ? 'indexed on its own; the build activates' : `fails alone in the worker pool (${c.expect.stage}/${c.expect.code}) with a reason in words; the build activates`;
      recordTrials({ area: 'hostile input', fault: c.what, trials: 1, outcome }, __filename);
    }
  });

  it('a PDF that keeps the parser busy past ingest.max_document_ms fails too_slow; its worker is replaced and the rest is indexed', async () => {
    // 20 million text operators behind a 230 KB Flate stream: pdf.js works on it for ~30 s.
    const balloon: Case = { name: 'balloon.pdf', what: 'a PDF that keeps the parser busy for ~30 s (20 million text operators)', bytes: () => pdf([['x']], Buffer.from('BT /F1 12 Tf 72 700 Td ' + '(ab) Tj '.repeat(20e6) + 'ET', 'latin1')), expect: { ok: false, stage: 'parse', code: 'too_slow', message: /parsing took longer than 3 s \(the ingest\.max_document_ms limit\), so it was stopped/ } };
    const notes: Case[] = Array.from({ length: 6 }, (_, i) => ({ name: `note-${i}.md`, what: 'a plain note', bytes: () => `# Note ${i}\n\nferns and mosses ${i}\n`, expect: { ok: true, blocks: 1, title: `Note ${i}` } }));
    const cases = [balloon, ...notes];
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_MAX_DOCUMENT_MS: '3000' });
    const dir = tempDir();
    writeCases(dir, cases);
    cli.json(['sources', 'add', dir, '--json']);
    const started = Date.now();
    const r = await cli.runAsync(['index', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started < 20_000, 'the build did not wait for the parser');
    const built = JSON.parse(r.stdout) as Scan & { state: string; activated: boolean };
    assert.equal(built.state, 'ready_partial');
    assert.equal(built.activated, true);
    const failed = built.failed_documents;
    assert.deepEqual(failed.map((f) => [path.basename(f.path), f.stage, f.code]), [['balloon.pdf', 'parse', 'too_slow']]);
    assert.match(failed[0]!.message, balloon.expect.ok ? /./ : balloon.expect.message);
    assert.equal(cli.json<{ total_count: number }>(['tool', 'scan_term', '{"term":"mosses"}']).total_count, 6);
    recordTrials({ area: 'hostile input', fault: balloon.what, trials: 1, outcome: 'stopped at ingest.max_document_ms (parse/too_slow), its worker replaced; the other 6 notes indexed' }, __filename);
  });
});
