/**
 * The scale bench's load step, in a process of its own (bench/scale.bench.ts runs it): the raw read of
 * what loading reads, the load itself with the event loop's delay watched, the memory it holds, keyword
 * and hybrid queries, and a float32 brute-force scan of the same rows, chunk by chunk, for the floor and
 * the exact ranking the recall is measured against.
 *
 *   node --expose-gc <this file, bundled> load <args.json> <out.json>
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DataDir } from '../src/common/data-dir';
import { FUSION_DEPTH, hybridSearch } from '../src/index/search/hybrid-search';
import { exactDot, normalizedQuery } from '../src/index/search/vector-index';
import { SEGMENT_FILES_2 } from '../src/index/store/segment-format';
import { segmentDir } from '../src/index/store/segment-store';
import { FILES, loadSnapshot, readManifest } from '../src/index/store/snapshot-store';
import { hashEmbedding } from '../test/fakes/hash-embedding';
import { medianOfFive } from './median-of-five';

/** A build's outcome as the scale bench records it (bench/scale.bench.ts runs `docqa index`). */
export interface BuildResult {
  ms: number;
  peakRssBytes: number;
  snapshotId: string;
  blocks: number;
  documents: number;
  embedded: number;
  durations: Record<string, number>;
}

export interface LoadArgs {
  store: string;
  snapshotId: string;
  dims: number;
  questions: string[];
  /** Questions asked with vectors (hybrid, recall, floor): fewer, the floor scans every row each. */
  vectorQuestions: number;
}

export interface LoadResult {
  rawReadMs: number;
  loadedBytes: number;
  loadMs: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** The longest stall of the first load in the process (which also compiles code it runs first). */
  firstLoadDelayMaxMs: number;
  residentBytes: number;
  rssDeltaBytes: number;
  textBytes: number;
  blocks: number;
  keywordP50Ms: number;
  keywordP95Ms: number;
  keywordPackBytes: number;
  postingsBytes: number;
  hybridP50Ms: number;
  hybridP95Ms: number;
  bruteP50Ms: number;
  bruteP95Ms: number;
  recallAt10: number;
  deterministic: boolean;
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

export function percentile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Heap + array buffers once the collector has settled (see index.bench.ts). */
async function settledMemory(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** The files loadSnapshot reads whole (vectors.f32 and keyword.postings are read only on demand). */
function loadedFiles(store: string, id: string, segments: ReadonlyArray<{ id: string }>): string[] {
  const root = new DataDir(store).snapshotDir(id);
  const f = SEGMENT_FILES_2;
  return [path.join(root, FILES.manifest), ...segments.flatMap((s) => [f.documents, f.blocks, f.text, f.keyword, f.codes].map((n) => path.join(segmentDir(root, s.id), n)))];
}

/** Top 10 by exact score, ties to the lower row, kept while scanning (rows come in ascending order). */
class Top10 {
  readonly rows: number[] = [];
  readonly scores: number[] = [];
  offer(row: number, s: number): void {
    if (this.rows.length === 10 && !(s > this.scores[9]!)) return;
    let p = this.rows.length === 10 ? 9 : this.rows.length;
    if (this.rows.length === 10) {
      this.rows.pop();
      this.scores.pop();
    }
    while (p > 0 && s > this.scores[p - 1]!) p--;
    this.rows.splice(p, 0, row);
    this.scores.splice(p, 0, s);
  }
}

/** Rows of the float32 floor scanned per chunk: 1 GiB at 1,024 dimensions (the whole matrix never in memory). */
const CHUNK_ROWS = 262_144;

async function load(a: LoadArgs): Promise<LoadResult> {
  const dir = new DataDir(a.store);
  const manifest = (await readManifest(dir, a.snapshotId))!;
  if (manifest.segments.length !== 1) throw new Error(`expected a snapshot of one segment, found ${manifest.segments.length}`);
  const files = loadedFiles(a.store, a.snapshotId, manifest.segments);
  const loadedBytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
  const rawRead = () => {
    const s = performance.now();
    for (const f of files) fs.readFileSync(f);
    return performance.now() - s;
  };
  const rawReadMs = await medianOfFive(rawRead);

  const rssBefore = process.memoryUsage().rss;
  const memBefore = await settledMemory();
  const firstDelay = monitorEventLoopDelay({ resolution: 10 });
  firstDelay.enable();
  let snap = await loadSnapshot(dir, a.snapshotId);
  firstDelay.disable();
  // The first load in a process also compiles what it runs for the first time (zod's schemas: ~15 ms
  // of one task): informational; the target is read on the five after it.
  const firstDelayMaxMs = firstDelay.max / 1e6;
  const residentBytes = (await settledMemory()) - memBefore + (snap.vectors?.wasmBytes ?? 0);
  const rssDeltaBytes = process.memoryUsage().rss - rssBefore;
  // The median of five more loads, as the floor is the median of five reads, and the median of their
  // loop delays' p99 (a monitor of its own for each load: one enabled again counts the time it was
  // off as a delay), with the longest stall of all five.
  const delayP99s: number[] = [];
  let delayMax = 0;
  const loadMs = await medianOfFive(async () => {
    snap = null as unknown as typeof snap;
    gc();
    await new Promise((r) => setTimeout(r, 100));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t = performance.now();
    snap = await loadSnapshot(dir, a.snapshotId);
    const ms = performance.now() - t;
    delay.disable();
    delayP99s.push(delay.percentile(99) / 1e6);
    delayMax = Math.max(delayMax, delay.max / 1e6);
    return ms;
  });

  const seg = segmentDir(dir.snapshotDir(a.snapshotId), manifest.segments[0]!.id);
  const textBytes = fs.statSync(path.join(seg, SEGMENT_FILES_2.text)).size;
  const keywordPackBytes = fs.statSync(path.join(seg, SEGMENT_FILES_2.keyword)).size;
  const postingsBytes = fs.statSync(path.join(seg, SEGMENT_FILES_2.postings)).size;

  // Keyword side alone, every question (warm-up: the first ten).
  const kw: number[] = [];
  for (const [i, q] of a.questions.entries()) {
    const s = performance.now();
    snap.bm25.search(q, FUSION_DEPTH);
    if (i >= 10) kw.push(performance.now() - s);
  }

  // Hybrid, and the vector side's own top 10 for the recall.
  const qs = a.questions.slice(0, a.vectorQuestions);
  const qv = qs.map((q) => hashEmbedding(q, a.dims));
  const hybrid: number[] = [];
  const answers: string[] = [];
  const ours: number[][] = [];
  qs.forEach((q, i) => {
    const s = performance.now();
    answers.push(JSON.stringify(hybridSearch(snap.bm25, snap.vectors, q, qv[i]!, 5)));
    hybrid.push(performance.now() - s);
    ours.push(snap.vectors!.search(qv[i]!, 10).map((h) => h.block));
  });
  const deterministic = qs.every((q, i) => JSON.stringify(hybridSearch(snap.bm25, snap.vectors, q, qv[i]!, 5)) === answers[i]);

  // The floor: the best JavaScript loop (exactDot: four accumulators) over the same float32 rows, read a
  // chunk at a time; each chunk's scan is timed per query and summed. It also gives the exact top 10.
  const blocks = snap.blockRefs.length;
  snap = null as unknown as typeof snap;
  gc();
  const brute = qs.map(() => 0);
  const exact = qs.map(() => new Top10());
  const nq = qv.map((v) => normalizedQuery(v, a.dims));
  const fd = fs.openSync(path.join(seg, SEGMENT_FILES_2.vectors), 'r');
  try {
    const chunk = new Float32Array(Math.min(CHUNK_ROWS, blocks) * a.dims);
    for (let first = 0; first < blocks; first += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, blocks - first);
      const bytes = new Uint8Array(chunk.buffer, 0, rows * a.dims * 4);
      for (let done = 0; done < bytes.length; ) done += fs.readSync(fd, bytes, done, bytes.length - done, first * a.dims * 4 + done);
      nq.forEach((q, i) => {
        const top = exact[i]!;
        const s = performance.now();
        for (let r = 0; r < rows; r++) top.offer(first + r, exactDot(chunk, r * a.dims, q, a.dims));
        brute[i]! += performance.now() - s;
      });
    }
  } finally {
    fs.closeSync(fd);
  }
  const recall = ours.reduce((n, o, i) => n + o.filter((b) => exact[i]!.rows.includes(b)).length / 10, 0) / ours.length;
  return {
    rawReadMs,
    loadedBytes,
    loadMs,
    loopDelayP99Ms: percentile(delayP99s, 50),
    loopDelayMaxMs: delayMax,
    firstLoadDelayMaxMs: firstDelayMaxMs,
    residentBytes,
    rssDeltaBytes,
    textBytes,
    blocks,
    keywordP50Ms: percentile(kw, 50),
    keywordP95Ms: percentile(kw, 95),
    keywordPackBytes,
    postingsBytes,
    hybridP50Ms: percentile(hybrid, 50),
    hybridP95Ms: percentile(hybrid, 95),
    bruteP50Ms: percentile(brute, 50),
    bruteP95Ms: percentile(brute, 95),
    recallAt10: recall,
    deterministic,
  };
}

async function main(): Promise<void> {
  const [step, argsFile, out] = process.argv.slice(2);
  if (step !== 'load') throw new Error(`unknown step ${step}`);
  const result = await load(JSON.parse(fs.readFileSync(argsFile!, 'utf8')) as LoadArgs);
  fs.writeFileSync(out!, JSON.stringify(result));
}

main().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exitCode = 1;
  });
