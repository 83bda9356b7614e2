/**
 * `npm run bench handwritten`: the project's hand-written parts against the library a maintainer would
 * reach for instead, on the same input in the same run (issue 19). Each row's value is ours / the
 * library's (time), so a ratio under 1 says the hand-written part earns its keep; every row first checks
 * that both give the same answer, since a faster wrong result is not a result. The storage formats'
 * rows (against SQLite and LMDB) are in handwritten-stores.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { countTokens as libraryCount } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as ourCount } from '../src/common/tokenizer';
import { VectorIndex, normalizeRows } from '../src/index/search/vector-index';
import { createIngestPool, type ScanOutcome } from '../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../src/index/model';
import { qaParagraphs, seededRandom } from './fixtures';
import { storeRows } from './handwritten-stores';
import type { BenchRow } from './report';

const ROOT = path.join(__dirname, '..');

/** The text with its Latin letters and common Han characters rotated by `k`: new words, the same shapes. */
function rotated(text: string, k: number): string {
  return text
    .replace(/[a-z]/g, (c) => String.fromCharCode(97 + ((c.charCodeAt(0) - 97 + k) % 26)))
    .replace(/[\u4e00-\u9fa5]/g, (c) => String.fromCharCode(0x4e00 + ((c.charCodeAt(0) - 0x4e00 + k * 37) % 0x51a6)));
}

/** Milliseconds to count every paragraph with `count`; throws unless the total is `expected`. */
function timeCount(count: (t: string) => number, paragraphs: readonly string[]): { ms: number; total: number } {
  const t = performance.now();
  let total = 0;
  for (const p of paragraphs) total += count(p);
  return { ms: performance.now() - t, total };
}

/** Throws unless both counters agree on every paragraph. */
function assertSameCounts(paragraphs: readonly string[], what: string): void {
  for (const [i, p] of paragraphs.entries()) {
    const ours = ourCount(p);
    const theirs = libraryCount(p);
    if (ours !== theirs) throw new Error(`token counts differ on ${what} paragraph ${i}: ours ${ours}, gpt-tokenizer ${theirs}: ${JSON.stringify(p.slice(0, 120))}`);
  }
}

/**
 * Counting speed, steady state (both caches warm, the paragraphs counted before) and on text neither has
 * seen (a fresh rotation each pass), best of the passes, the two counters interleaved.
 */
function countingRows(paragraphs: readonly string[]): BenchRow[] {
  const mb = paragraphs.reduce((n, p) => n + Buffer.byteLength(p), 0) / 1e6;
  assertSameCounts(paragraphs, 'corpus');
  let ours = Infinity;
  let theirs = Infinity;
  for (let round = 0; round < 5; round++) {
    ours = Math.min(ours, timeCount(ourCount, paragraphs).ms);
    theirs = Math.min(theirs, timeCount(libraryCount, paragraphs).ms);
  }
  // Unseen text: each pass its own rotation for both counters (checked equal first, outside the timing).
  let oursUnseen = Infinity;
  let theirsUnseen = Infinity;
  let mbUnseen = 0;
  for (let k = 1; k <= 4; k++) {
    const text = paragraphs.map((p) => rotated(p, k));
    mbUnseen = text.reduce((n, p) => n + Buffer.byteLength(p), 0) / 1e6;
    // The library first on odd passes, ours first on even ones, so neither always runs on a warmer CPU.
    const a = k % 2 ? timeCount(libraryCount, text) : timeCount(ourCount, text);
    const b = k % 2 ? timeCount(ourCount, text) : timeCount(libraryCount, text);
    if (a.total !== b.total) throw new Error(`token totals differ on rotation ${k}: ${a.total} vs ${b.total}`);
    const [o, l] = k % 2 ? [b, a] : [a, b];
    oursUnseen = Math.min(oursUnseen, o.ms);
    theirsUnseen = Math.min(theirsUnseen, l.ms);
    if (k === 4) assertSameCounts(text, 'rotated');
  }
  const n = paragraphs.length;
  return [
    { name: `handwritten.bpe.count_${n}_paragraphs.ms (vs gpt-tokenizer)`, value: ours, unit: 'ms', floor: theirs, ratio: ours / theirs, target: '<= 1' },
    { name: `handwritten.bpe.count_${n}_paragraphs.MBps`, value: mb / (ours / 1000), unit: 'MB/s', floor: mb / (theirs / 1000), ratio: null },
    { name: `handwritten.bpe.count_unseen_text.ms (vs gpt-tokenizer)`, value: oursUnseen, unit: 'ms', floor: theirsUnseen, ratio: oursUnseen / theirsUnseen, target: '<= 1' },
    { name: `handwritten.bpe.count_unseen_text.MBps`, value: mbUnseen / (oursUnseen / 1000), unit: 'MB/s', floor: mbUnseen / (theirsUnseen / 1000), ratio: null },
  ];
}

/**
 * First use in a fresh process: loading the counter and counting one paragraph. Ours is bundled here as the
 * build bundles it, next to the build's dist/o200k.bin (which it reads at its first count); the library is
 * required from node_modules. Best of five processes each, interleaved.
 */
async function firstUseRows(sample: string): Promise<BenchRow[]> {
  const table = path.join(ROOT, 'dist', 'o200k.bin');
  if (!fs.existsSync(table)) throw new Error(`${table} is missing: npm run bench builds it`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-tok-'));
  try {
    await build({ entryPoints: { tokenizer: path.join(ROOT, 'src', 'common', 'tokenizer.ts') }, bundle: true, platform: 'node', format: 'cjs', target: 'node20', outdir: dir, logLevel: 'warning' });
    fs.copyFileSync(table, path.join(dir, 'o200k.bin'));
    const sampleFile = path.join(dir, 'sample.txt');
    fs.writeFileSync(sampleFile, sample);
    const child = (module: string): { ms: number; count: number } => {
      const script = `const fs=require('fs');const s=fs.readFileSync(${JSON.stringify(sampleFile)},'utf8');const t=performance.now();const n=require(${JSON.stringify(module)}).countTokens(s);process.stdout.write(JSON.stringify({ms:performance.now()-t,count:n}));`;
      const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`first-use child for ${module} failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as { ms: number; count: number };
    };
    const ourModule = path.join(dir, 'tokenizer.js');
    const libModule = require.resolve('gpt-tokenizer/encoding/o200k_base');
    let ours = Infinity;
    let theirs = Infinity;
    for (let i = 0; i < 5; i++) {
      const o = child(ourModule);
      const l = child(libModule);
      if (o.count !== l.count) throw new Error(`first-use counts differ: ours ${o.count}, gpt-tokenizer ${l.count}`);
      ours = Math.min(ours, o.ms);
      theirs = Math.min(theirs, l.ms);
    }
    return [
      { name: 'handwritten.bpe.first_use.ms (ours: bundle + o200k.bin)', value: ours, unit: 'ms', floor: null, ratio: null },
      { name: 'handwritten.bpe.first_use.ms (gpt-tokenizer o200k_base)', value: theirs, unit: 'ms', floor: null, ratio: null },
      { name: 'handwritten.bpe.first_use.ms (vs gpt-tokenizer)', value: ours, unit: 'ms', floor: theirs, ratio: ours / theirs, target: '<= 1' },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ROWS = 10_000;
const DIMS = 1024;
const K = 10;

/** The `k` best rows by score, best first (ties by row), by a bounded insertion into a sorted list. */
function topK(scores: ArrayLike<number>, k: number): number[] {
  const rows: number[] = [];
  const best: number[] = [];
  for (let r = 0; r < scores.length; r++) {
    const s = scores[r]!;
    if (best.length === k && s <= best[k - 1]!) continue;
    let i = best.length;
    while (i > 0 && best[i - 1]! < s) i--;
    best.splice(i, 0, s);
    rows.splice(i, 0, r);
    if (best.length > k) {
      best.pop();
      rows.pop();
    }
  }
  return rows;
}

/** The alternative to the kernel: a plain JavaScript loop over the same matrix, one running sum per row. */
function plainScan(matrix: Float32Array, query: Float32Array, dims: number): Float64Array {
  const q = Float32Array.from(query);
  normalizeRows(q, dims);
  const n = matrix.length / dims;
  const out = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const off = r * dims;
    let s = 0;
    for (let j = 0; j < dims; j++) s += matrix[off + j]! * q[j]!;
    out[r] = s;
  }
  return out;
}

/**
 * The WebAssembly SIMD dot kernel (VectorIndex in the kernel's memory) against a plain JS loop and against
 * VectorIndex's own JS fallback (four accumulators), same matrix, same queries, top-10 by score.
 */
function dotKernelRows(): BenchRow[] {
  const rand = seededRandom(19);
  const wasm = VectorIndex.allocate(ROWS, DIMS);
  if (wasm.wasmBytes === 0) throw new Error('the dot kernel did not allocate: no WebAssembly memory of that size here');
  for (let i = 0; i < wasm.matrix.length; i++) wasm.matrix[i] = rand();
  normalizeRows(wasm.matrix, DIMS);
  const js = new VectorIndex(Float32Array.from(wasm.matrix), DIMS);
  const queries = Array.from({ length: 20 }, () => Float32Array.from({ length: DIMS }, () => rand()));
  for (const [i, q] of queries.entries()) {
    const a = topK(wasm.score(q), K);
    const b = topK(plainScan(js.matrix, q, DIMS), K);
    const c = topK(js.score(q), K);
    if (a.join() !== b.join() || a.join() !== c.join()) throw new Error(`top-${K} differs on query ${i}: wasm ${a.join()}, plain JS ${b.join()}, JS fallback ${c.join()}`);
  }
  const time = (f: (q: Float32Array) => ArrayLike<number>): number => {
    const t = performance.now();
    let n = 0;
    for (const q of queries) n += topK(f(q), K)[0]!;
    if (n < 0) throw new Error('unreachable');
    return (performance.now() - t) / queries.length;
  };
  let ours = Infinity;
  let plain = Infinity;
  let fallback = Infinity;
  for (let round = 0; round < 5; round++) {
    ours = Math.min(ours, time((q) => wasm.score(q)));
    plain = Math.min(plain, time((q) => plainScan(js.matrix, q, DIMS)));
    fallback = Math.min(fallback, time((q) => js.score(q)));
  }
  const label = `${ROWS / 1000}k_x_${DIMS}.top${K}`;
  return [
    { name: `handwritten.dot_kernel.${label}.ms (wasm vs plain JS loop)`, value: ours, unit: 'ms', floor: plain, ratio: ours / plain, target: '<= 1' },
    { name: `handwritten.dot_kernel.${label}.ms (wasm vs JS 4-accumulator fallback)`, value: ours, unit: 'ms', floor: fallback, ratio: ours / fallback, target: '<= 1' },
  ];
}

const POOL_FILES = 1000;
const MARKDOWN = path.join(ROOT, '..', 'shared', 'corpus', 'markdown');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}

/** 1,000 small Markdown files (the real pages, English and Chinese, cut at a paragraph after 2,000 characters), each unique. */
function smallFiles(dir: string): string[] {
  const pages = walk(fs.existsSync(MARKDOWN) ? MARKDOWN : path.join(ROOT, 'test', 'fixtures', 'markdown'))
    .sort()
    .map((f) => {
      const text = fs.readFileSync(f, 'utf8');
      const cut = text.indexOf('\n\n', 2000);
      return cut < 0 ? text : text.slice(0, cut + 1);
    });
  return Array.from({ length: POOL_FILES }, (_, i) => {
    const file = path.join(dir, `note-${i}.md`);
    fs.writeFileSync(file, `<!-- note ${i} -->\n${pages[i % pages.length]}`);
    return file;
  });
}

/**
 * The ingestion worker pool (ingest-pool.ts) against tinypool, the same number of worker threads and two
 * jobs in flight per worker on both, each running ingestFile with a blocking read on the same 1,000 files
 * (the task bundled as the build bundles dist/ingest-worker.js, next to the same o200k.bin). Outcomes are
 * checked equal file by file; best of six rounds after a warm one, interleaved.
 */
async function poolRows(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-pool-'));
  const { Tinypool } = await import('tinypool');
  try {
    const files = smallFiles(dir);
    const taskDir = path.join(dir, 'task');
    await build({ entryPoints: { task: path.join(__dirname, 'tinypool-ingest-task.ts') }, bundle: true, platform: 'node', format: 'cjs', target: 'node20', outdir: taskDir, external: ['vscode', '@napi-rs/canvas', 'pdfjs-dist'], logLevel: 'silent' });
    fs.copyFileSync(path.join(ROOT, 'dist', 'o200k.bin'), path.join(taskDir, 'o200k.bin'));
    const identity = { doc_id: 'd', source_label: 'bench', aliases: [] };
    const ours = createIngestPool(DEFAULT_INGEST_OPTIONS, path.join(ROOT, 'dist', 'ingest-worker.js'));
    const theirs = new Tinypool({ filename: path.join(taskDir, 'task.js'), minThreads: ours.size, maxThreads: ours.size, concurrentTasksPerWorker: 2 });
    try {
      const runAll = async (run: (f: string) => Promise<ScanOutcome>) => {
        const t = performance.now();
        const outcomes = await Promise.all(files.map(run));
        return { ms: performance.now() - t, outcomes };
      };
      const oursRun = () => runAll((f) => ours.run(f, identity));
      const theirsRun = () => runAll((f) => theirs.run({ path: f, identity, options: DEFAULT_INGEST_OPTIONS }) as Promise<ScanOutcome>);
      // tinypool's only way to stop a running task is its AbortSignal; a task that has one runs alone on
      // its worker (and the clock runs from submission, queue included): what a time limit costs there.
      const theirsLimitedRun = () => runAll((f) => theirs.run({ path: f, identity, options: DEFAULT_INGEST_OPTIONS }, { signal: AbortSignal.timeout(DEFAULT_INGEST_OPTIONS.max_document_ms) }) as Promise<ScanOutcome>);
      const a = await oursRun();
      for (const other of [await theirsRun(), await theirsLimitedRun()])
        for (const [i, o] of a.outcomes.entries()) {
          if (o.ok !== true) throw new Error(`${files[i]}: ${JSON.stringify(o)}`);
          if (JSON.stringify(o) !== JSON.stringify(other.outcomes[i])) throw new Error(`ingest outcomes differ between the pools on ${files[i]}`);
        }
      const runs: Array<[() => Promise<{ ms: number }>, number]> = [[oursRun, Infinity], [theirsRun, Infinity], [theirsLimitedRun, Infinity]];
      // Which pool runs first rotates by round, so none always starts on a warmer CPU.
      for (let round = 0; round < 12; round++)
        for (let i = 0; i < runs.length; i++) {
          const r = runs[(i + round) % runs.length]!;
          r[1] = Math.min(r[1], (await r[0]()).ms);
        }
      const [oursMs, theirsMs, limitedMs] = runs.map((r) => r[1]);
      const label = `handwritten.ingest_pool.${POOL_FILES}_small_md.ms (${ours.size} workers`;
      return [
        { name: `${label}, vs tinypool)`, value: oursMs!, unit: 'ms', floor: theirsMs!, ratio: oursMs! / theirsMs!, target: '<= 1' },
        { name: `${label}, vs tinypool with a time limit: AbortSignal per task)`, value: oursMs!, unit: 'ms', floor: limitedMs!, ratio: oursMs! / limitedMs!, target: '<= 1' },
      ];
    } finally {
      await ours.close();
      await theirs.destroy();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function handwrittenBench(): Promise<BenchRow[]> {
  const { paragraphs } = qaParagraphs();
  if (paragraphs.length === 0) throw new Error('the QA corpus (../shared/corpus/qa) is missing: the tokenizer rows need real paragraphs');
  const rows: BenchRow[] = [...countingRows(paragraphs)];
  // One English and one Chinese paragraph: the first count loads everything either counter needs.
  rows.push(...(await firstUseRows(`${paragraphs[0]!}\n\n${paragraphs.find((p) => /[\u4e00-\u9fff]/.test(p)) ?? ''}`)));
  rows.push(...dotKernelRows());
  rows.push(...(await poolRows()));
  // 100k blocks of ten per document, as the index group builds them: the keyword pack's input.
  const texts = Array.from({ length: 100_000 }, (_, i) => `${paragraphs[i % paragraphs.length]} (#${Math.floor(i / 10)}.${i % 10})`);
  rows.push(...(await storeRows(texts, texts.map((_, i) => `Doc ${Math.floor(i / 10)} Body`))));
  return rows;
}
