/**
 * `npm run bench pdf-corpus`: DocQA's ingestion over the PDFs mozilla/pdf.js keeps in `test/pdfs` (commit
 * 0f26334, 971 files), through the real pool (dist/ingest-worker.js, two workers, default limits), against
 * an expected outcome per file (bench/pdf-corpus-expected.json) and against Debian poppler-utils'
 * `pdftotext` on the documents both read. The files are not in this repository: their licences are
 * unstated (pdf.js itself keeps third-party files as links for that reason), so bench/pdf-corpus-setup.sh
 * copies them from a clone of pdf.js into .corpus/ (git-ignored) and installs poppler-utils.
 *
 * It fails when a file's outcome code differs from the expected one, or when a document is indexed with
 * less than half of pdftotext's characters and the expected file gives no reason. With
 * DOCQA_PDF_CORPUS_RECORD=1 it writes the outcomes it saw as the new expectations instead (keeping the
 * reasons already written), for a person to review in the diff.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createIngestPool } from '../src/index/ingest/ingest-pool';
import { IngestOptions } from '../src/index/model';
import type { BenchRow } from './report';

export const CORPUS_DIR = path.join(__dirname, '..', '.corpus', 'pdfjs-0f26334');
const EXPECTED = path.join(__dirname, 'pdf-corpus-expected.json');
const WORKER = path.join(__dirname, '..', 'dist', 'ingest-worker.js');

const Expected = z.object({
  commit: z.string(),
  files: z.record(
    z.string(),
    z.object({
      sha256: z.string(),
      /** The outcome code; `ok|too_slow` where it depends on the machine's speed (then with a reason). */
      code: z.string(),
      /** Why this document keeps less than half of pdftotext's characters (or why its code is what it is). */
      reason: z.string().optional(),
    }),
  ),
});
type Expected = z.infer<typeof Expected>;

interface Seen {
  file: string;
  code: string;
  pages: number;
  chars: number;
  /** Non-whitespace characters pdftotext extracts, or null when it failed on the file. */
  poppler: number | null;
  message: string;
}

/** An expected code (`a|b` for either) allows the seen one. */
const allows = (expected: string, code: string) => expected.split('|').includes(code);

const visible = (text: string) => [...text.replace(/\s+/gu, '')].length;

/** pdftotext's non-whitespace characters, or null when it fails (a damaged or encrypted file). */
function popplerChars(file: string): number | null {
  const r = spawnSync('pdftotext', ['-q', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
  return r.status === 0 ? visible(r.stdout) : null;
}

export async function pdfCorpusBench(): Promise<BenchRow[]> {
  if (!fs.existsSync(CORPUS_DIR)) throw new Error(`the pdf.js corpus is not at ${CORPUS_DIR}: run bash bench/pdf-corpus-setup.sh PATH-TO-A-PDF.JS-CLONE first`);
  if (spawnSync('pdftotext', ['-v']).error) throw new Error('pdftotext is missing: bash bench/pdf-corpus-setup.sh installs poppler-utils (apt-get)');
  const expected = Expected.parse(JSON.parse(fs.readFileSync(EXPECTED, 'utf8')));
  const files = Object.keys(expected.files).sort();
  for (const f of files) {
    const bytes = fs.readFileSync(path.join(CORPUS_DIR, f));
    if (crypto.createHash('sha256').update(bytes).digest('hex') !== expected.files[f]!.sha256) throw new Error(`${f} is not the file of commit ${expected.commit}: run the set-up again`);
  }
  const pool = createIngestPool(IngestOptions.parse({}), WORKER, Math.min(2, os.availableParallelism()));
  const seen: Seen[] = [];
  const t = performance.now();
  try {
    await Promise.all(
      files.map(async (file) => {
        const o = await pool.run(path.join(CORPUS_DIR, file), { doc_id: file, source_label: 'pdf.js', aliases: [] });
        if (o.ok === true) seen.push({ file, code: 'ok', pages: o.document.page_count ?? 0, chars: o.document.blocks.reduce((n, b) => n + visible(b.text), 0), poppler: null, message: o.document.unread_pages?.map((u) => `page ${u.page}: ${u.reason}`).join('; ') ?? '' });
        else seen.push({ file, code: o.ok === false ? o.failure.code : 'unchanged', pages: 0, chars: 0, poppler: null, message: o.ok === false ? o.failure.message : '' });
      }),
    );
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - t) / 1000;
  seen.sort((a, b) => (a.file < b.file ? -1 : 1));
  const p = performance.now();
  for (const s of seen) if (s.code === 'ok') s.poppler = popplerChars(path.join(CORPUS_DIR, s.file));
  const popplerSeconds = (performance.now() - p) / 1000;

  const both = seen.filter((s) => s.code === 'ok' && s.poppler !== null && s.poppler > 0);
  const low = both.filter((s) => s.chars < s.poppler! / 2);
  if (process.env.DOCQA_PDF_CORPUS_RECORD === '1') {
    const next: Expected = { commit: expected.commit, files: {} };
    for (const s of seen) {
      const before = expected.files[s.file]!;
      next.files[s.file] = { sha256: before.sha256, code: allows(before.code, s.code) ? before.code : s.code, ...(before.reason ? { reason: before.reason } : {}) };
    }
    fs.writeFileSync(EXPECTED, `${JSON.stringify(next, null, 1)}\n`);
  }
  const changed = seen.filter((s) => !allows(expected.files[s.file]!.code, s.code));
  const unexplained = low.filter((s) => !expected.files[s.file]!.reason);
  const byCode = new Map<string, number>();
  for (const s of seen) byCode.set(s.code, (byCode.get(s.code) ?? 0) + 1);
  // What the no_text failures said: a scan (the file holds images), nothing at all, glyph codes, page numbers.
  const said = (re: RegExp) => seen.filter((s) => s.code === 'no_text' && re.test(s.message)).length;
  const pages = seen.reduce((n, s) => n + s.pages, 0);
  const ours = both.reduce((n, s) => n + s.chars, 0);
  const theirs = both.reduce((n, s) => n + s.poppler!, 0);
  console.log(`pdf-corpus: ${seen.length} files in ${seconds.toFixed(1)} s; pdftotext read the ${seen.filter((s) => s.code === 'ok').length} indexed ones in ${popplerSeconds.toFixed(1)} s`);
  for (const s of changed) console.log(`  CHANGED ${s.file}: expected ${expected.files[s.file]!.code}, got ${s.code} ${s.message}`);
  for (const s of low) console.log(`  ${expected.files[s.file]!.reason ? 'low' : 'LOW, NO REASON'} ${s.file}: ${s.chars} of pdftotext's ${s.poppler} characters${expected.files[s.file]!.reason ? ` (${expected.files[s.file]!.reason})` : ''}`);
  if (process.env.DOCQA_PDF_CORPUS_RECORD !== '1' && (changed.length || unexplained.length)) {
    throw new Error(`pdf-corpus: ${changed.length} file(s) changed outcome, ${unexplained.length} indexed with less than half of pdftotext's characters without a reason (see above)`);
  }
  return [
    ...[...byCode].sort(([a], [b]) => (a < b ? -1 : 1)).map(([code, n]): BenchRow => ({ name: `pdf-corpus: files ${code}`, value: n, unit: 'files', floor: null, ratio: null })),
    { name: 'pdf-corpus: no_text saying "needs OCR" (the file holds images)', value: said(/needs OCR/), unit: 'files', floor: null, ratio: null },
    { name: 'pdf-corpus: no_text saying "no text and no image"', value: said(/the file holds no image/), unit: 'files', floor: null, ratio: null },
    { name: 'pdf-corpus: no_text saying "glyph codes" (unreadable text layer)', value: said(/unreadable/), unit: 'files', floor: null, ratio: null },
    { name: 'pdf-corpus: indexed in part (pages named)', value: seen.filter((s) => s.code === 'ok' && s.message).length, unit: 'files', floor: null, ratio: null },
    { name: 'pdf-corpus: pages indexed per second (2 workers)', value: pages / seconds, unit: 'pages/s', floor: null, ratio: null },
    { name: 'pdf-corpus: characters indexed vs pdftotext (documents both read)', value: ours, unit: 'chars', floor: theirs, ratio: ours / theirs },
    { name: 'pdf-corpus: documents under half of pdftotext, each with a stated reason', value: low.length, unit: 'files', floor: null, ratio: null },
  ];
}
