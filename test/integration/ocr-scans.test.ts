/**
 * Scanned PDFs (issue 36 item 5), through the built CLI (pdf.js and tesseract.js in its ingestion
 * workers, from dist/): with OCR off, the scanned pages are named as unread, to the user (index,
 * sources scan) and to the model ({collection_status}), and the document is never complete; with OCR on
 * (DOCQA_INGEST_OCR=1, and no network: every connection throws), the English and the Chinese pages are
 * read and found by the tools. OCR output can vary by a character: the tests look for recognised words.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { collectionStatusText } from '../../src/harness/prompt-sections';
import { loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { fixture, tempDir } from '../helpers';
import { makeCli } from './cli';

interface Summary {
  state: string;
  documents: number;
  failed_documents: Array<{ path: string; stage: string; code: string; message: string; pages?: number[] }>;
}
interface Hits {
  hits: Array<{ snippet: string; section_path: string; doc_id: string }>;
}

const NO_NETWORK = path.join(__dirname, '..', 'fixtures', 'no-network.cjs');

function scans(): string {
  const dir = tempDir('docqa-scans-');
  for (const f of ['scanned-with-text.pdf', 'scanned-en-zh.pdf']) fs.copyFileSync(fixture('pdf', f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'note.md'), '# Note\n\nStomata open in the light.\n');
  return dir;
}

describe('scanned PDFs', () => {
  it('OCR off: the scanned pages are named as unread ("pages 2–3 of X are images without text; turn on OCR") to the user and the model, and OCR on then reads them, offline', { timeout: 10 * 60_000 }, async () => {
    const dir = scans();
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    cli.json(['sources', 'add', dir, '--json']);

    // OCR off (the default).
    const off = await cli.runAsync(['index', '--yes', '--json']);
    assert.equal(off.code, 0, `${off.stderr}\n${off.stdout}`);
    assert.doesNotMatch(off.stderr, /OCR is on/);
    const s = JSON.parse(off.stdout) as Summary;
    assert.equal(s.state, 'ready_partial');
    assert.equal(s.documents, 2, 'the note and the text page of the mixed PDF');
    const byName = new Map(s.failed_documents.map((f) => [path.basename(f.path), f]));
    const mixed = byName.get('scanned-with-text.pdf')!;
    assert.deepEqual([mixed.code, mixed.pages], ['no_text', [2, 3]]);
    assert.match(mixed.message, /^pages 2–3 of scanned-with-text\.pdf are images without text; turn on OCR to read them \(the setting docqa\.ingest\.ocr; DOCQA_INGEST_OCR=1 for the CLI\); the other pages are indexed$/);
    const whole = byName.get('scanned-en-zh.pdf')!;
    assert.equal(whole.pages, undefined, 'a scan with no text page fails whole');
    assert.match(whole.message, /pages 1–2 of scanned-en-zh\.pdf are images without text; turn on OCR to read them/);

    // The user: the index and the sources scan say PARTIAL and FAILED, never complete.
    const text = await cli.runAsync(['index', '--yes']);
    assert.match(text.stdout, /PARTIAL .*scanned-with-text\.pdf: parse\/no_text — pages 2–3 of scanned-with-text\.pdf are images without text; turn on OCR/);
    assert.match(text.stdout, /FAILED .*scanned-en-zh\.pdf: parse\/no_text — PDF has 2 page\(s\) and no text to index: pages 1–2 of scanned-en-zh\.pdf are images without text/);
    const scan = cli.run(['sources', 'scan']);
    assert.match(scan.stdout, /PARTIAL .*scanned-with-text\.pdf: .*pages 2–3 of scanned-with-text\.pdf are images without text/);
    assert.match(scan.stdout, /2 documents \(1 partial\), 1 failed/);

    // The model: {collection_status} is partial and carries the same words.
    const snap = (await loadActiveSnapshot(new DataDir(cli.store)))!;
    const status = JSON.parse(collectionStatusText(snap)) as { completeness: string; failed_documents: Array<{ path: string; message: string }> };
    assert.equal(status.completeness, 'partial');
    assert.ok(
      status.failed_documents.some((f) => f.path.endsWith('scanned-with-text.pdf') && /pages 2–3 of scanned-with-text\.pdf are images without text; turn on OCR to read them/.test(f.message)),
      JSON.stringify(status),
    );
    // The text page is searchable; the scanned words are not there yet.
    assert.equal(cli.json<Hits>(['tool', 'scan_term', JSON.stringify({ term: 'handout' })]).hits.length, 1);
    assert.equal(cli.json<Hits>(['tool', 'scan_term', JSON.stringify({ term: 'thylakoid' })]).hits.length, 0);

    // OCR on, with every network call refused (and logged) in the CLI and its workers: the same store's
    // next build reads the scans again although the files did not change, and says its cost first.
    const netLog = path.join(tempDir('docqa-net-'), 'network.log');
    const on = { DOCQA_INGEST_OCR: '1', NODE_OPTIONS: `--require ${NO_NETWORK}`, DOCQA_NETWORK_LOG: netLog };
    const read = await cli.runAsync(['index', '--yes', '--json'], on);
    assert.equal(read.code, 0, `${read.stderr}\n${read.stdout}`);
    assert.match(read.stderr, /docqa: OCR is on: pages of PDFs that are images without text \(scans\) are read on this computer, about 2–5 s a page/);
    const r = JSON.parse(read.stdout) as Summary;
    assert.deepEqual(r.failed_documents, [], 'every page was read');
    assert.equal(r.state, 'ready');
    assert.equal(r.documents, 3);
    assert.equal(fs.existsSync(netLog), false, `OCR tried the network: ${fs.existsSync(netLog) ? fs.readFileSync(netLog, 'utf8') : ''}`);

    // English words from the JPEG page, Chinese from the 1-bit image-mask page, in both PDFs, each under
    // its page's heading (OCR'd lines go through the parser's headings by type size).
    const found = (term: string) => cli.json<Hits>(['tool', 'scan_term', JSON.stringify({ term })]).hits;
    for (const term of ['thylakoid', 'Chlorophyll', 'photosystem']) {
      const hits = found(term);
      assert.equal(new Set(hits.map((h) => h.doc_id)).size, 2, `${term}: ${JSON.stringify(hits)}`);
      for (const h of hits) assert.match(h.section_path, /Photosynthesis in the Chloroplast/);
    }
    for (const term of ['卡尔文循环', '叶绿体', '蛋白质']) {
      const hits = found(term);
      assert.equal(new Set(hits.map((h) => h.doc_id)).size, 2, `${term}: ${JSON.stringify(hits)}`);
      for (const h of hits) assert.match(h.section_path, /第二章/);
    }
    const statusOn = JSON.parse(collectionStatusText((await loadActiveSnapshot(new DataDir(cli.store)))!)) as { completeness: string };
    assert.equal(statusOn.completeness, 'complete');
  });
});
