/**
 * One step list of the orama group, in a process of its own (forked by orama.bench.ts, which caps its
 * time and memory): build or cold-load DocQA's index or Orama's over the same n blocks × dims, and
 * report each step as it starts and ends, so a step the parent had to stop is known by name.
 * argv[2] is a ChildTask as JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DataDir } from '../src/common/data-dir';
import { hybridSearch } from '../src/index/search/hybrid-search';
import { normalizeRows } from '../src/index/search/vector-index';
import { loadSnapshot } from '../src/index/store/snapshot-store';
import { bruteForce } from './index.bench';
import { benchDocuments, qaParagraphs, seededRandom, writeBenchSnapshot } from './fixtures';
import { type Format, OramaSides, type TokenizerName } from './orama-sides';
import { percentile } from './qa-set';

export type ChildTask =
  | { task: 'build-docqa'; n: number; dims: number; dir: string }
  | { task: 'load-docqa'; n: number; dims: number; dir: string }
  | { task: 'build-orama'; n: number; dims: number; dir: string; tokenizer: TokenizerName; formats: Format[]; queries: boolean }
  | { task: 'load-orama'; n: number; dims: number; dir: string; tokenizer: TokenizerName; format: Format };

export type ChildEvent = { step: string; phase: 'start' } | { step: string; phase: 'done'; values: Record<string, number> } | { step: string; phase: 'failed'; error: string };

const QUERIES = 40;
const WARMUP = 5;
const SNAPSHOT = 'bench-orama';

function send(e: ChildEvent): void {
  process.send!(e);
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Resident set size once garbage is gone (array buffers are freed on a background thread after a collection). */
async function settledRss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 100));
  }
  return process.memoryUsage().rss;
}

function peakRss(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** The same blocks, vectors and queries for both engines: DocQA's index bench collection. */
function collection(n: number, dims: number) {
  const qa = qaParagraphs();
  const { documents, textBytes } = benchDocuments(n, qa.paragraphs);
  const texts = documents.flatMap((d) => d.blocks.map((b) => b.text));
  const next = seededRandom(n);
  const matrix = new Float32Array(n * dims);
  for (let i = 0; i < matrix.length; i++) matrix[i] = next();
  const t = performance.now();
  normalizeRows(matrix, dims);
  const normalizeMs = performance.now() - t;
  const zh = qa.questions.filter((q) => /\p{Script=Han}/u.test(q));
  const en = qa.questions.filter((q) => !/\p{Script=Han}/u.test(q));
  const queries = Array.from({ length: QUERIES + WARMUP }, (_, i) => (i % 2 ? en : zh)[Math.floor(i / 2)]!);
  const vectors = queries.map(() => Float32Array.from({ length: dims }, next));
  return { documents, texts, textBytes, matrix, normalizeMs, queries, vectors };
}

/** p95 of `run` over the queries after the warm-up ones; the answers of all of them. */
function timed<T>(count: number, run: (i: number) => T): { p95: number; answers: T[] } {
  const ms: number[] = [];
  const answers: T[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    answers.push(run(i));
    if (i >= WARMUP) ms.push(performance.now() - t);
  }
  return { p95: percentile(ms, 95), answers };
}

interface Expected {
  keyword: number[][];
  hybrid: number[][];
}

async function step(name: string, body: () => Promise<Record<string, number>> | Record<string, number>): Promise<boolean> {
  send({ step: name, phase: 'start' });
  try {
    send({ step: name, phase: 'done', values: await body() });
    return true;
  } catch (err) {
    send({ step: name, phase: 'failed', error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    return false;
  }
}

function rawReadMs(files: readonly string[]): number {
  const once = () => {
    const t = performance.now();
    for (const f of files) fs.readFileSync(f);
    return performance.now() - t;
  };
  return Math.min(once(), once());
}

function differing(expected: number[][], got: number[][]): number {
  return got.filter((g, i) => JSON.stringify(g) !== JSON.stringify(expected[i])).length;
}

function snapshotFiles(dir: DataDir): string[] {
  const folder = dir.snapshotDir(SNAPSHOT);
  return (fs.readdirSync(folder, { recursive: true }) as string[]).map((f) => path.join(folder, f)).filter((f) => fs.statSync(f).isFile());
}

async function buildDocqa(t: Extract<ChildTask, { task: 'build-docqa' }>): Promise<void> {
  const c = collection(t.n, t.dims);
  const dir = new DataDir(t.dir);
  await step('build', async () => ({ ms: c.normalizeMs + (await writeBenchSnapshot(dir, SNAPSHOT, c.documents, c.matrix, t.dims)), peak_rss: peakRss() }));
  await step('persist.docqa', () => ({ bytes: snapshotFiles(dir).reduce((s, f) => s + fs.statSync(f).size, 0), text_bytes: c.textBytes }));
  const snap = await loadSnapshot(dir, SNAPSHOT);
  await step('query', () => {
    const keyword = timed(c.queries.length, (i) => snap.bm25.search(c.queries[i]!, 5).ranked.map((h) => h.block));
    const hybrid = timed(c.queries.length, (i) => hybridSearch(snap.bm25, snap.vectors, c.queries[i]!, c.vectors[i]!, 5).map((h) => h.block));
    const brute = timed(c.queries.length, (i) => bruteForce(c.matrix, c.vectors[i]!, t.dims));
    fs.writeFileSync(path.join(t.dir, 'expected-docqa.json'), JSON.stringify({ keyword: keyword.answers, hybrid: hybrid.answers } satisfies Expected));
    return { keyword_p95: keyword.p95, hybrid_p95: hybrid.p95, brute_p95: brute.p95 };
  });
}

async function loadDocqa(t: Extract<ChildTask, { task: 'load-docqa' }>): Promise<void> {
  const { queries, vectors } = collection(t.n, t.dims);
  const dir = new DataDir(t.dir);
  const expected = JSON.parse(fs.readFileSync(path.join(t.dir, 'expected-docqa.json'), 'utf8')) as Expected;
  await step('load.docqa', async () => {
    const raw = rawReadMs(snapshotFiles(dir));
    const before = await settledRss();
    const s = performance.now();
    const snap = await loadSnapshot(dir, SNAPSHOT);
    const ms = performance.now() - s;
    const resident = (await settledRss()) - before;
    const got = queries.map((q, i) => hybridSearch(snap.bm25, snap.vectors, q, vectors[i]!, 5).map((h) => h.block));
    const off = differing(expected.hybrid, got);
    if (off) throw new Error(`the loaded index answers ${off} of ${got.length} queries differently`);
    return { ms, raw_ms: raw, resident };
  });
}

async function buildOrama(t: Extract<ChildTask, { task: 'build-orama' }>): Promise<void> {
  const c = collection(t.n, t.dims);
  let sides: OramaSides | undefined;
  const ok = await step('build', async () => {
    const before = await settledRss();
    const s = performance.now();
    sides = OramaSides.build(c.texts, c.matrix, t.dims, t.tokenizer);
    const ms = performance.now() - s;
    return { ms, resident: (await settledRss()) - before, peak_rss: peakRss() };
  });
  if (!ok || !sides) return;
  const o = sides;
  if (t.queries)
    await step('query', () => {
      const keyword = timed(c.queries.length, (i) => o.search(c.queries[i]!, 5).ranked.map((h) => h.block));
      // DocQA's fusion over Orama's two sides: the same calls as DocQA's index is measured through.
      const rrf = timed(c.queries.length, (i) => hybridSearch(o, o.vectors, c.queries[i]!, c.vectors[i]!, 5).map((h) => h.block));
      const native = timed(c.queries.length, (i) => o.hybrid(c.queries[i]!, c.vectors[i]!, 5));
      const brute = timed(c.queries.length, (i) => bruteForce(c.matrix, c.vectors[i]!, t.dims));
      fs.writeFileSync(path.join(t.dir, 'expected-orama.json'), JSON.stringify({ keyword: keyword.answers, hybrid: native.answers } satisfies Expected));
      return { keyword_p95: keyword.p95, hybrid_p95: rrf.p95, native_hybrid_p95: native.p95, brute_p95: brute.p95 };
    });
  for (const format of t.formats) {
    await step(`persist.${format}`, async () => {
      const file = path.join(t.dir, `orama.${format}`);
      const s = performance.now();
      await o.persistTo(format, file);
      return { ms: performance.now() - s, bytes: fs.statSync(file).size };
    });
    gc();
  }
}

async function loadOrama(t: Extract<ChildTask, { task: 'load-orama' }>): Promise<void> {
  const { queries, vectors } = collection(t.n, t.dims);
  const file = path.join(t.dir, `orama.${t.format}`);
  const expected = JSON.parse(fs.readFileSync(path.join(t.dir, 'expected-orama.json'), 'utf8')) as Expected;
  await step(`load.${t.format}`, async () => {
    const raw = rawReadMs([file]);
    const before = await settledRss();
    const s = performance.now();
    const o = await OramaSides.fromFile(t.format, file, t.n, t.dims, t.tokenizer);
    const ms = performance.now() - s;
    const resident = (await settledRss()) - before;
    // A format that loses part of the index breaks here: different answers, or an error.
    const off = differing(expected.keyword, queries.map((q) => o.search(q, 5).ranked.map((h) => h.block))) + differing(expected.hybrid, queries.map((q, i) => o.hybrid(q, vectors[i]!, 5)));
    if (off) throw new Error(`the restored index answers ${off} of ${2 * queries.length} queries differently`);
    return { ms, raw_ms: raw, resident };
  });
}

async function main(): Promise<void> {
  const t = JSON.parse(process.argv[2]!) as ChildTask;
  if (t.task === 'build-docqa') await buildDocqa(t);
  else if (t.task === 'load-docqa') await loadDocqa(t);
  else if (t.task === 'build-orama') await buildOrama(t);
  else await loadOrama(t);
}

if (process.send)
  main().then(
    () => process.disconnect(),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
      process.disconnect();
    },
  );
