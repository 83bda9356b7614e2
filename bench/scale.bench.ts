import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDir } from '../src/common/data-dir';
import { createIngestPool } from '../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../src/index/model';
import { addSources } from '../src/index/sources/sources';
import { FakeOpenAIServer } from '../test/fakes/openai-server';
import { hashEmbedding } from '../test/fakes/hash-embedding';
import type { BenchRow } from './report';
import { stealMeter } from './cpu-steal';
import { BLOCKS_PER_BOOK, bookPath, seedCache, shelf, writeBooks } from './scale-books';
import type { BuildResult, LoadArgs, LoadResult } from './scale-child';

/**
 * `npm run bench scale` (issue 37): a shelf of textbooks at 100k, 300k and 1M blocks × 1,024
 * dimensions (`DOCQA_BENCH_SCALE_SIZES=100000,300000` picks sizes; `DOCQA_BENCH_SCALE_DIR` where its
 * files go: about 13 GB at 1M), each figure against its floor in the same run:
 *
 * - a full build, `docqa index` (the bundled CLI; the embedding cache filled beforehand with the hash
 *   embeddings of every block, as the rebuild group does): its peak resident memory against the loaded
 *   index's size;
 * - in a fresh process: the load against a raw read of the files it reads (the median of five each), the event
 *   loop's delay during the load, the memory it holds against text + float32 vectors, keyword and hybrid
 *   query times, the hybrid time against a float32 brute-force scan of the same rows (the best
 *   JavaScript loop, a chunk of rows at a time), and the recall@10 of the int8 search with its exact
 *   rescoring against that exact scan;
 * - one more book (500 blocks, embedded through the local endpoint) added to the shelf, against the
 *   full build.
 *
 * Heavy: run it alone on an idle machine.
 */
const DIMS = 1024;
const MODEL = 'hash-ngram';
const DEFAULT_SIZES = [100_000, 300_000, 1_000_000];
/** Questions asked of the keyword side, and of the vector side (each of those scans every float32 row for the floor). */
const KEYWORD_QUESTIONS = 400;
const VECTOR_QUESTIONS = 40;

/** A process to its end (asynchronously: this process's local endpoint must keep answering); its stdout. */
async function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | string>((resolve) => child.on('exit', (c, sig) => resolve(c ?? sig ?? 'unknown')));
  if (code !== 0) throw new Error(`${args.slice(-4).join(' ')} failed (exit ${code})`);
  return out;
}

/**
 * A build as a user runs it: `docqa index --yes --json` (the bundled CLI, which makes its own ingestion
 * pool), wall time from start to exit, and the process's peak resident memory (bench/peak-rss.cjs).
 */
async function cliBuild(store: string, baseURL: string): Promise<BuildResult> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-scale-build-'));
  try {
    const peak = path.join(work, 'peak');
    const env = { PATH: process.env.PATH ?? '', HOME: work, DOCQA_HOME: store, DOCQA_EMBEDDING_BASE_URL: baseURL, DOCQA_EMBEDDING_MODEL: MODEL, DOCQA_EMBEDDING_DIMENSIONS: String(DIMS), DOCQA_EMBEDDING_API_KEY: 'bench', DOCQA_KEEP_SNAPSHOTS: '1', DOCQA_BENCH_PEAK_RSS_FILE: peak };
    const t = performance.now();
    const out = await run(['--require', path.join(__dirname, 'peak-rss.cjs'), path.join(__dirname, '..', 'dist', 'cli.js'), 'index', '--yes', '--json'], env);
    const ms = performance.now() - t;
    const r = JSON.parse(out) as { snapshot_id: string; state: string; blocks: number; documents: number; embedded_blocks: number; durations_ms: Record<string, number> };
    if (r.state !== 'ready') throw new Error(`the build ended ${r.state}`);
    return { ms, peakRssBytes: Number(fs.readFileSync(peak, 'utf8')), snapshotId: r.snapshot_id, blocks: r.blocks, documents: r.documents, embedded: r.embedded_blocks, durations: r.durations_ms };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The load step bundled as the product is (esbuild, like dist/): run from the TypeScript sources, its
 * first load paid for compiling each module it touched (tsx, synchronously: a 260 ms stall of the event
 * loop that no user sees).
 */
async function bundleLoadStep(dir: string): Promise<string> {
  const outfile = path.join(dir, 'scale-child.js');
  await build({ entryPoints: [path.join(__dirname, 'scale-child.ts')], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', external: ['vscode', '@napi-rs/canvas', 'pdfjs-dist'], define: { __DOCQA_BUILD__: '"bench"' } });
  return outfile;
}

/** The load step in a child process (asynchronously: this process's local endpoint must keep answering). */
async function runChild<T>(script: string, step: 'load', args: LoadArgs): Promise<T> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-scale-step-'));
  try {
    const argsFile = path.join(work, 'args.json');
    const out = path.join(work, 'out.json');
    fs.writeFileSync(argsFile, JSON.stringify(args));
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', script, step, argsFile, out], { stdio: 'inherit' });
    const code = await new Promise<number | string>((resolve) => child.on('exit', (c, sig) => resolve(c ?? sig ?? 'unknown')));
    if (code !== 0) throw new Error(`scale step ${step} failed (exit ${code})`);
    return JSON.parse(fs.readFileSync(out, 'utf8')) as T;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const MB = (b: number) => b / 1e6;

async function scaleAt(n: number): Promise<BenchRow[]> {
  const s = shelf();
  const books = Math.round(n / BLOCKS_PER_BOOK);
  const base = process.env.DOCQA_BENCH_SCALE_DIR ?? os.tmpdir();
  const root = fs.mkdtempSync(path.join(base, 'docqa-bench-scale-'));
  const server = await new FakeOpenAIServer({ embed: hashEmbedding }).start();
  const label = `scale.${n >= 1e6 ? `${n / 1e6}M` : `${n / 1000}k`}`;
  try {
    const shelfDir = path.join(root, 'books');
    const store = path.join(root, 'store');
    const dir = new DataDir(store);
    let t = performance.now();
    writeBooks(s, shelfDir, 0, books);
    await addSources(dir, [shelfDir]);
    const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, path.join(__dirname, '..', 'dist', 'ingest-worker.js'));
    let seeded: number;
    try {
      seeded = await seedCache(s, shelfDir, books, dir.embeddingsDir, server.baseURL, MODEL, DIMS, pool);
    } finally {
      await pool.close();
    }
    console.error(`[scale ${n}] ${books} books, ${seeded} blocks written and their embeddings cached in ${Math.round(performance.now() - t)} ms`);

    const full = await cliBuild(store, server.baseURL);
    if (full.embedded !== 0) throw new Error(`the full build embedded ${full.embedded} blocks: the cache should have held them all`);
    console.error(`[scale ${n}] full build ${Math.round(full.ms)} ms, peak RSS ${Math.round(MB(full.peakRssBytes))} MB`);

    const questions = s.questions.slice(0, KEYWORD_QUESTIONS);
    const steal = stealMeter();
    const loaded = await runChild<LoadResult>(await bundleLoadStep(root), 'load', { store, snapshotId: full.snapshotId, dims: DIMS, questions, vectorQuestions: VECTOR_QUESTIONS });
    if (!loaded.deterministic) throw new Error('the same snapshot and query gave different answers');
    const stolen = steal(`${label}.load_and_queries`);

    // One more book: parsed, embedded through the endpoint, written as a small segment beside the shelf's.
    writeBooks(s, shelfDir, books, books + 1);
    t = performance.now();
    const added = await cliBuild(store, server.baseURL);
    if (added.embedded === 0 || added.documents !== books + 1) throw new Error(`adding a book: ${added.documents} documents, ${added.embedded} blocks embedded`);
    fs.rmSync(bookPath(shelfDir, books));

    const floorBytes = loaded.textBytes + loaded.blocks * DIMS * 4;
    const k = (r: BenchRow) => r;
    return [
      k({ name: `${label}.blocks`, value: full.blocks, unit: 'blocks', floor: null, ratio: null }),
      k({ name: `${label}.full_build_ms (embeddings cached)`, value: full.ms, unit: 'ms', floor: null, ratio: null }),
      ...(['ingest', 'embed', 'index', 'write'] as const).map((stage) => ({ name: `${label}.full_build.${stage}_ms`, value: full.durations[stage]!, unit: 'ms', floor: null, ratio: null })),
      k({ name: `${label}.build_peak_rss_MB (vs loaded index)`, value: MB(full.peakRssBytes), unit: 'MB', floor: MB(loaded.residentBytes), ratio: full.peakRssBytes / loaded.residentBytes, target: '<= 1.5' }),
      k({ name: `${label}.resident_after_load_MB (vs text + float32 vectors)`, value: MB(loaded.residentBytes), unit: 'MB', floor: MB(floorBytes), ratio: loaded.residentBytes / floorBytes, target: '<= 0.5' }),
      k({ name: `${label}.resident_after_load.rss_delta_MB`, value: MB(loaded.rssDeltaBytes), unit: 'MB', floor: MB(floorBytes), ratio: loaded.rssDeltaBytes / floorBytes }),
      k({ name: `${label}.cold_load_ms (vs raw read of the ${Math.round(MB(loaded.loadedBytes))} MB it reads)`, value: loaded.loadMs, unit: 'ms', floor: loaded.rawReadMs, ratio: loaded.loadMs / loaded.rawReadMs, target: '<= 2' }),
      k({ name: `${label}.load_loop_delay_p99_ms`, value: loaded.loopDelayP99Ms, unit: 'ms', floor: 50, ratio: loaded.loopDelayP99Ms / 50, target: '<= 50', absolute: true }),
      k({ name: `${label}.load_loop_delay_max_ms`, value: loaded.loopDelayMaxMs, unit: 'ms', floor: null, ratio: null }),
      k({ name: `${label}.load_loop_delay_max_ms.first_load_in_process`, value: loaded.firstLoadDelayMaxMs, unit: 'ms', floor: null, ratio: null }),
      k({ name: `${label}.keyword_p50_ms`, value: loaded.keywordP50Ms, unit: 'ms', floor: null, ratio: null }),
      k({ name: `${label}.keyword_p95_ms`, value: loaded.keywordP95Ms, unit: 'ms', floor: 20, ratio: loaded.keywordP95Ms / 20, target: '<= 20', absolute: true }),
      k({ name: `${label}.keyword_index_build_ms (in the full build)`, value: full.durations.index!, unit: 'ms', floor: null, ratio: null }),
      k({ name: `${label}.keyword_pack_MB (loaded) / postings_MB (read per term)`, value: MB(loaded.keywordPackBytes), unit: 'MB', floor: MB(loaded.postingsBytes), ratio: loaded.keywordPackBytes / loaded.postingsBytes }),
      k({ name: `${label}.hybrid_p50_ms`, value: loaded.hybridP50Ms, unit: 'ms', floor: loaded.bruteP50Ms, ratio: loaded.hybridP50Ms / loaded.bruteP50Ms }),
      k({ name: `${label}.hybrid_p95_ms (vs float32 brute-force scan, best JS loop)`, value: loaded.hybridP95Ms, unit: 'ms', floor: loaded.bruteP95Ms, ratio: loaded.hybridP95Ms / loaded.bruteP95Ms, target: '<= 0.5' }),
      k({ name: `${label}.vector_recall_at_10 (int8 + exact rescoring vs exact float32)`, value: loaded.recallAt10, unit: '', floor: 1, ratio: loaded.recallAt10, target: '>= 0.99' }),
      // The issue's target is one book added to a 1M-block knowledge base: below that, a one-book build's
      // fixed cost (1.2-1.7 s: the CLI, the manifest, the parent's segments opened) is a larger share.
      k({ name: `${label}.one_book_added_ms (vs full build${n >= 1e6 ? '' : '; the target is at 1M'})`, value: added.ms, unit: 'ms', floor: full.ms, ratio: added.ms / full.ms, ...(n >= 1e6 ? { target: '<= 0.02' } : {}) }),
      k({ name: `${label}.one_book_added.peak_rss_MB`, value: MB(added.peakRssBytes), unit: 'MB', floor: null, ratio: null }),
      ...(stolen ? [stolen] : []),
    ];
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function scaleBench(): Promise<BenchRow[]> {
  const sizes = process.env.DOCQA_BENCH_SCALE_SIZES ? process.env.DOCQA_BENCH_SCALE_SIZES.split(',').map(Number) : DEFAULT_SIZES;
  const rows: BenchRow[] = [];
  for (const n of sizes) rows.push(...(await scaleAt(n)));
  return rows;
}
