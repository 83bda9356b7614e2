import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDir } from '../src/common/data-dir';
import { ingestBytes } from '../src/index/ingest/ingest-file';
import { createIngestPool } from '../src/index/ingest/ingest-pool';
import { ingestSources } from '../src/index/ingest/ingest-sources';
import { addSources } from '../src/index/sources/sources';
import { DEFAULT_INGEST_OPTIONS } from '../src/index/model';
import { preparePdfThread } from '../src/index/ingest/ingest-worker';
import { configuredMarkdownIt } from '../src/index/parse/markdown';
import { countTokens as libraryCount } from 'gpt-tokenizer';
import type { BenchRow } from './report';

// This process parses a PDF itself below (one thread), as an ingestion worker does.
preparePdfThread();

/**
 * The unavoidable library work of ingesting these files, one thread: markdown-it's block parse (as the
 * parser configures it) and exact o200k token counting (gpt-tokenizer) of the same text. Ingestion's
 * target is a ratio to this, not to reading bytes, which no parser and no exact tokenizer can approach.
 */
function libraryWork(files: readonly string[]): number {
  const texts = files.map((f) => fs.readFileSync(f, 'utf8'));
  const md = configuredMarkdownIt();
  const t = performance.now();
  let n = 0;
  for (const text of texts) {
    n += md.parse(text, {}).length;
    n += libraryCount(text);
  }
  if (n < 0) throw new Error('unreachable');
  return (performance.now() - t) / 1000;
}

const CORPUS = path.join(__dirname, '..', '..', 'shared', 'corpus', 'markdown');
const FALLBACK = path.join(__dirname, '..', 'test', 'fixtures', 'markdown');
const FILES = 5000;

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}

const SOURCE_DIR = fs.existsSync(CORPUS) ? CORPUS : FALLBACK;

/** 5,000 Markdown files made from real pages (English and Chinese), each made unique by a header. */
function generateCorpus(): { dir: string; files: string[]; bytes: number } {
  const sources = walk(SOURCE_DIR).sort().map((f) => fs.readFileSync(f, 'utf8'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-md-'));
  const files: string[] = [];
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(sub);
    const file = path.join(sub, `note-${i}.md`);
    const text = `<!-- note ${i} -->\n${sources[i % sources.length]}`;
    fs.writeFileSync(file, text);
    bytes += Buffer.byteLength(text);
    files.push(file);
  }
  return { dir, files, bytes };
}

/**
 * The floor: read every file with the same blocking call the ingestion workers use and, for text, decode
 * it as UTF-8; nothing else, on one thread. (One awaited readFile per file is about 4× slower here; that
 * older floor is printed too, so numbers compare with earlier notes.)
 */
async function rawRead(files: readonly string[], decode = true, blocking = true): Promise<number> {
  const t = performance.now();
  const dec = new TextDecoder('utf-8', { fatal: true });
  let n = 0;
  for (const f of files) {
    const bytes = blocking ? fs.readFileSync(f) : await fs.promises.readFile(f);
    n += decode ? dec.decode(bytes).length : bytes.length;
  }
  if (n < 0) throw new Error('unreachable');
  return (performance.now() - t) / 1000;
}

async function ingestAll(files: readonly string[]): Promise<{ seconds: number; blocks: number }> {
  const t = performance.now();
  let blocks = 0;
  for (const f of files) {
    const bytes = fs.readFileSync(f);
    const r = await ingestBytes(f, bytes, { doc_id: 'd', source_label: 'bench', aliases: [] }, DEFAULT_INGEST_OPTIONS);
    if (!r.ok) throw new Error(`${f}: ${r.failure.message}`);
    blocks += r.document.blocks.length;
  }
  return { seconds: (performance.now() - t) / 1000, blocks };
}

/**
 * The real pages once each, through a pool started for them: text that no cache has seen, in workers that
 * have not run yet, which is what a user's first index of their notes costs. (The 5,000-file corpus
 * repeats these pages, so past its first hundred files every chunk is already counted.)
 */
async function unseenText(): Promise<BenchRow> {
  const files = walk(SOURCE_DIR).sort();
  const mb = files.reduce((n, f) => n + fs.statSync(f).size, 0) / 1e6;
  const store = new DataDir(fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-store-')));
  try {
    await addSources(store, [SOURCE_DIR]);
    await rawRead(files);
    const raw = Math.min(await rawRead(files), await rawRead(files));
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, path.join(__dirname, '..', 'dist', 'ingest-worker.js'));
    try {
      const t = performance.now();
      const r = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { pool });
      const seconds = (performance.now() - t) / 1000;
      if (r.failed_documents.length) throw new Error(JSON.stringify(r.failed_documents[0]));
      return { name: `ingest.markdown.unseen_${files.length}_files.MBps`, value: mb / seconds, unit: 'MB/s', floor: mb / raw, ratio: raw / seconds };
    } finally {
      await pool.close();
    }
  } finally {
    fs.rmSync(store.root, { recursive: true, force: true });
  }
}

/** The text with its Latin letters and common Han characters rotated by `k`: new words, the same shapes. */
function rotated(text: string, k: number): string {
  return text
    .replace(/[a-z]/g, (c) => String.fromCharCode(97 + ((c.charCodeAt(0) - 97 + k) % 26)))
    .replace(/[\u4e00-\u9fa5]/g, (c) => String.fromCharCode(0x4e00 + ((c.charCodeAt(0) - 0x4e00 + k * 37) % 0x51a6)));
}

/**
 * Steady-state ingestion of text no cache has seen, on one thread: the real pages rotated (a fresh
 * rotation each pass, so every word is new to the tokenizer's chunk cache), best of the passes after the
 * first (which warms the JIT). The 5,000-file corpus repeats its pages, so there counting mostly hits.
 */
async function unseenSteadyState(): Promise<BenchRow> {
  const pages = walk(SOURCE_DIR).sort().map((f) => fs.readFileSync(f, 'utf8'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-rotated-'));
  try {
    let best = Infinity;
    let raw = Infinity;
    let mb = 0;
    for (let k = 1; k <= 4; k++) {
      const files = pages.map((p, i) => {
        const file = path.join(dir, `r${k}-${i}.md`);
        fs.writeFileSync(file, rotated(p, k));
        return file;
      });
      mb = files.reduce((n, f) => n + fs.statSync(f).size, 0) / 1e6;
      raw = Math.min(raw, await rawRead(files));
      const run = await ingestAll(files);
      if (k > 1) best = Math.min(best, run.seconds);
    }
    return { name: 'ingest.markdown.unseen_text_one_thread.MBps', value: mb / best, unit: 'MB/s', floor: mb / raw, ratio: raw / best };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Shapes of real files that were quadratic once (see blocker.ts hardSplit and sentences.ts): an
 * unpunctuated Chinese text (one run of 320,000 characters) and a long page of 20,000 sibling headings
 * with the same title. Printed so a regression shows as a collapse in MB/s.
 */
async function pathologicalShapes(): Promise<BenchRow[]> {
  const han = '天地玄黃宇宙洪荒日月盈昃辰宿列張寒來暑往秋收冬藏閏餘成歲律呂調陽雲騰致雨露結為霜';
  const shapes: Array<[string, string]> = [
    ['unpunctuated_run_320k_chars', `# 千字文\n\n${Array.from({ length: 320_000 }, (_, i) => han[(i * 7 + (i >> 3)) % han.length]).join('')}\n`],
    ['20000_sibling_headings', Array.from({ length: 20_000 }, (_, i) => `## Setup\n\nStep ${i} of the setup.\n`).join('\n')],
  ];
  const rows: BenchRow[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-shapes-'));
  try {
    for (const [name, text] of shapes) {
      const file = path.join(dir, `${name}.md`);
      fs.writeFileSync(file, text);
      const mb = Buffer.byteLength(text) / 1e6;
      const raw = Math.min(await rawRead([file]), await rawRead([file]));
      await ingestAll([file]);
      const run = await ingestAll([file]);
      rows.push({ name: `ingest.markdown.${name}.MBps`, value: mb / run.seconds, unit: 'MB/s', floor: mb / raw, ratio: raw / run.seconds });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export async function ingestBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [await unseenText(), await unseenSteadyState(), ...(await pathologicalShapes())];
  const corpus = generateCorpus();
  try {
    const mb = corpus.bytes / 1e6;
    // The whole ingestion of a folder source: walk, read, hash, stable ids, parse and block (worker pool).
    const store = new DataDir(fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-store-')));
    await addSources(store, [corpus.dir]);
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, path.join(__dirname, '..', 'dist', 'ingest-worker.js'));
    const scan = async () => {
      const t = performance.now();
      const r = await ingestSources(store, DEFAULT_INGEST_OPTIONS, { pool });
      if (r.failed_documents.length) throw new Error(JSON.stringify(r.failed_documents[0]));
      return { seconds: (performance.now() - t) / 1000, blocks: r.documents.reduce((n, d) => n + d.blocks.length, 0) };
    };
    try {
      // Warm the page cache, the JIT and the workers' caches, then interleave floor and measurement (this
      // machine's speed drifts) and keep the best of each.
      await rawRead(corpus.files);
      await scan();
      let raw = Infinity;
      let rawAsync = Infinity;
      let library = Infinity;
      let best = { seconds: Infinity, blocks: 0 };
      for (let round = 0; round < 3; round++) {
        raw = Math.min(raw, await rawRead(corpus.files));
        rawAsync = Math.min(rawAsync, await rawRead(corpus.files, true, false));
        library = Math.min(library, libraryWork(corpus.files));
        const run = await scan();
        if (run.seconds < best.seconds) best = run;
      }
      // The target (issue 19): at most 2× the library work of the same bytes, and at least 1.6× faster on the
      // pool than on one thread. The raw-read floor is printed for information.
      rows.push({ name: `ingest.markdown.${FILES}_files.vs_library_work`, value: mb / best.seconds, unit: 'MB/s', floor: mb / library, ratio: best.seconds / library, target: '<= 2' });
      rows.push({ name: `ingest.markdown.${FILES}_files.MBps`, value: mb / best.seconds, unit: 'MB/s', floor: mb / raw, ratio: raw / best.seconds });
      rows.push({ name: `ingest.markdown.${FILES}_files.MBps_vs_awaited_reads`, value: mb / best.seconds, unit: 'MB/s', floor: mb / rawAsync, ratio: rawAsync / best.seconds });
      rows.push({ name: `ingest.markdown.${FILES}_files.blocks_per_s`, value: best.blocks / best.seconds, unit: 'blocks/s', floor: null, ratio: null });
      const single = await ingestAll(corpus.files);
      rows.push({ name: `ingest.markdown.${FILES}_files.MBps_one_thread`, value: mb / single.seconds, unit: 'MB/s', floor: mb / raw, ratio: raw / single.seconds });
      rows.push({ name: `ingest.markdown.${FILES}_files.pool_speedup (${pool.size} workers)`, value: single.seconds / best.seconds, unit: '×', floor: null, ratio: single.seconds / best.seconds, target: '>= 1.6' });
    } finally {
      await pool.close();
      fs.rmSync(store.root, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(corpus.dir, { recursive: true, force: true });
  }

  const pdf = path.join(__dirname, '..', 'test', 'fixtures', 'pdf', 'pdkids.pdf');
  const pdfBytes = fs.statSync(pdf).size / 1e6;
  const rawPdf = Math.min(await rawRead([pdf], false), await rawRead([pdf], false), await rawRead([pdf], false));
  await ingestAll([pdf]);
  const pdfRuns = [await ingestAll([pdf]), await ingestAll([pdf])];
  const bestPdf = pdfRuns.reduce((a, b) => (a.seconds <= b.seconds ? a : b));
  rows.push({ name: 'ingest.pdf.pdkids_55_pages.MBps', value: pdfBytes / bestPdf.seconds, unit: 'MB/s', floor: pdfBytes / rawPdf, ratio: rawPdf / bestPdf.seconds });
  rows.push({ name: 'ingest.pdf.pdkids_55_pages.blocks_per_s', value: bestPdf.blocks / bestPdf.seconds, unit: 'blocks/s', floor: null, ratio: null });
  return rows;
}
