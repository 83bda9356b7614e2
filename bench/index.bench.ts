import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDir } from '../src/common/data-dir';
import { hybridSearch } from '../src/index/search/hybrid-search';
import { loadSnapshot } from '../src/index/store/snapshot-store';
import { normalizeRows } from '../src/index/search/vector-index';
import { benchDocuments, qaParagraphs, seededRandom, writeBenchSnapshot } from './fixtures';
import type { BenchRow } from './report';
import { medianOfFive } from './median-of-five';

const DIMS = 1024;
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The floor for query time: a plain dot-product scan of every row, nothing else. */
export function bruteForce(matrix: Float32Array, q: Float32Array, dims: number): number {
  let best = -Infinity;
  for (let off = 0; off < matrix.length; off += dims) {
    let s = 0;
    for (let j = 0; j < dims; j++) s += matrix[off + j]! * q[j]!;
    if (s > best) best = s;
  }
  return best;
}

/**
 * Heap + array buffers once garbage is really gone: V8 frees array buffers on a background thread after
 * a collection, so read right after gc() the count could still include the raw-read floor's 64 MB of
 * buffers (and moved the resident row by ±40 MB between runs).
 */
async function settledMemory(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** One load of a snapshot from a collected heap, nothing of it kept. */
async function timedLoad(dir: DataDir, id: string): Promise<number> {
  gc();
  const t = performance.now();
  await loadSnapshot(dir, id);
  return performance.now() - t;
}

export async function indexBench(sizes: number[] = [10_000, 100_000]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const qa = qaParagraphs();
  const paragraphs = qa.paragraphs.length ? qa.paragraphs : ['Photosynthesis turns light into chemical energy.', '光合作用把光能转化为化学能。'];
  const questions = qa.questions.length ? qa.questions : ['What does photosynthesis do?'];
  for (const n of sizes) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-index-'));
    const dir = new DataDir(root);
    try {
      const { documents, textBytes } = benchDocuments(n, paragraphs);
      const next = seededRandom(n);
      const matrix = new Float32Array(n * DIMS);
      for (let i = 0; i < matrix.length; i++) matrix[i] = next();

      // Build: keyword index and files written and fsynced (embedding latency excluded), vectors normalised.
      const id = `bench-${n}`;
      const t0 = performance.now();
      normalizeRows(matrix, DIMS);
      const buildMs = performance.now() - t0 + (await writeBenchSnapshot(dir, id, documents, matrix, DIMS));
      // The same collection as incremental builds leave it: four segments of 85/10/4/1 %.
      const segmentedId = `bench-${n}-segments`;
      await writeBenchSnapshot(dir, segmentedId, documents, matrix, DIMS, [0.85, 0.1, 0.04, 0.01]);
      const folder = dir.snapshotDir(id);
      // Every file of the snapshot: the manifest and its segment's files.
      const files = (fs.readdirSync(folder, { recursive: true }) as string[]).map((f) => path.join(folder, f)).filter((f) => fs.statSync(f).isFile());
      const bytes = files.reduce((s, f) => s + fs.statSync(f).size, 0);
      rows.push({ name: `index.${n / 1000}k.build_ms (bm25 + vectors + write)`, value: buildMs, unit: 'ms', floor: null, ratio: null });
      rows.push({ name: `index.${n / 1000}k.bytes_on_disk`, value: bytes / 1e6, unit: 'MB', floor: (textBytes + matrix.byteLength) / 1e6, ratio: bytes / (textBytes + matrix.byteLength) });

      // Cold load vs raw read of the same files.
      const rawRead = () => {
        const s = performance.now();
        for (const f of files) fs.readFileSync(f);
        return performance.now() - s;
      };
      const raw = await medianOfFive(rawRead);
      documents.length = 0;
      const memBefore = await settledMemory();
      let snap = await loadSnapshot(dir, id);
      // The vectors' WebAssembly memory is in neither heapUsed nor arrayBuffers: added by hand.
      const memAfter = (await settledMemory()) + (snap.vectors?.wasmBytes ?? 0);
      // The first load (which also compiles what runs for the first time) is the memory's; the time is
      // the median of five more, as the floor is the median of its reads.
      const loadMs = await medianOfFive(() => timedLoad(dir, id));
      rows.push({ name: `index.${n / 1000}k.cold_load_ms`, value: loadMs, unit: 'ms', floor: raw, ratio: loadMs / raw, target: '<= 3' });
      rows.push({ name: `index.${n / 1000}k.resident_MB (heap + buffers)`, value: (memAfter - memBefore) / 1e6, unit: 'MB', floor: (textBytes + n * DIMS * 4) / 1e6, ratio: (memAfter - memBefore) / (textBytes + n * DIMS * 4), target: '<= 1.5' });
      if (!snap.vectors) throw new Error('unreachable');

      // Hybrid query (query embedding excluded) vs a brute-force Float32 scan.
      const qs = questions.slice(0, 40);
      const qv = qs.map(() => Float32Array.from({ length: DIMS }, next));
      const hybrid: number[] = [];
      const brute: number[] = [];
      qs.forEach((q, i) => {
        let s = performance.now();
        hybridSearch(snap.bm25, snap.vectors, q, qv[i]!, 5);
        hybrid.push(performance.now() - s);
        s = performance.now();
        bruteForce(matrix, qv[i]!, DIMS);
        brute.push(performance.now() - s);
      });
      const bruteP95 = percentile(brute, 95);
      rows.push({ name: `index.${n / 1000}k.hybrid_query_p50_ms`, value: percentile(hybrid, 50), unit: 'ms', floor: percentile(brute, 50), ratio: percentile(hybrid, 50) / percentile(brute, 50) });
      rows.push({ name: `index.${n / 1000}k.hybrid_query_p95_ms`, value: percentile(hybrid, 95), unit: 'ms', floor: bruteP95, ratio: percentile(hybrid, 95) / bruteP95, target: '<= 3' });

      // The segmented snapshot: cold load vs raw read of its files (the single one released first, so both
      // loads see the same heap), and queries that must answer the same.
      const expected = qs.map((q, i) => JSON.stringify(hybridSearch(snap.bm25, snap.vectors, q, qv[i]!, 5)));
      snap = null as unknown as typeof snap;
      const segFolder = dir.snapshotDir(segmentedId);
      const segFiles = (fs.readdirSync(segFolder, { recursive: true }) as string[]).map((f) => path.join(segFolder, f)).filter((f) => fs.statSync(f).isFile());
      const segRaw = await medianOfFive(() => {
        const s = performance.now();
        for (const f of segFiles) fs.readFileSync(f);
        return performance.now() - s;
      });
      const segLoad = await medianOfFive(() => timedLoad(dir, segmentedId));
      const seg = await loadSnapshot(dir, segmentedId);
      rows.push({ name: `index.${n / 1000}k.4_segments.cold_load_ms`, value: segLoad, unit: 'ms', floor: segRaw, ratio: segLoad / segRaw, target: '<= 3' });
      const segTimes: number[] = [];
      qs.forEach((q, i) => {
        const s = performance.now();
        const hits = hybridSearch(seg.bm25, seg.vectors, q, qv[i]!, 5);
        segTimes.push(performance.now() - s);
        if (JSON.stringify(hits) !== expected[i]) throw new Error(`segmented snapshot answers ${q} differently`);
      });
      rows.push({ name: `index.${n / 1000}k.4_segments.hybrid_query_p95_ms`, value: percentile(segTimes, 95), unit: 'ms', floor: bruteP95, ratio: percentile(segTimes, 95) / bruteP95, target: '<= 3' });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  return rows;
}
