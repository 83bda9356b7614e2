import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildBm25 } from '../src/index/bm25-index';
import { writeIndexFiles } from '../src/index/build-snapshot';
import { DataDir } from '../src/index/data-dir';
import { hybridSearch } from '../src/index/hybrid-search';
import { writeVersioned } from '../src/index/json-file';
import { DEFAULT_INGEST_OPTIONS, type Document } from '../src/index/model';
import { SNAPSHOT_FORMAT_VERSION, type SnapshotManifest } from '../src/index/snapshot-manifest';
import { FILES, loadSnapshot } from '../src/index/snapshot-store';
import { normalizeRows } from '../src/index/vector-index';
import type { BenchRow } from './report';

const QA = path.join(__dirname, '..', '..', 'shared', 'corpus', 'qa');
const DIMS = 1024;
const BLOCKS_PER_DOC = 10;

function paragraphsAndQuestions(): { paragraphs: string[]; questions: string[] } {
  const paragraphs: string[] = [];
  const questions: string[] = [];
  for (const f of ['squad-dev-v1.1.json', 'cmrc2018-dev.json']) {
    const file = path.join(QA, f);
    if (!fs.existsSync(file)) continue;
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { data: Array<{ paragraphs: Array<{ context: string; qas: Array<{ question: string }> }> }> };
    for (const a of data.data) for (const p of a.paragraphs) {
      paragraphs.push(p.context);
      if (p.qas[0]) questions.push(p.qas[0].question);
    }
  }
  if (paragraphs.length === 0) paragraphs.push('Photosynthesis turns light into chemical energy.', '光合作用把光能转化为化学能。');
  if (questions.length === 0) questions.push('What does photosynthesis do?');
  return { paragraphs, questions };
}

function rand32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The floor for query time: a plain dot-product scan of every row, nothing else. */
function bruteForce(matrix: Float32Array, q: Float32Array, dims: number): number {
  let best = -Infinity;
  for (let off = 0; off < matrix.length; off += dims) {
    let s = 0;
    for (let j = 0; j < dims; j++) s += matrix[off + j]! * q[j]!;
    if (s > best) best = s;
  }
  return best;
}

export async function indexBench(sizes: number[] = [10_000, 100_000]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { paragraphs, questions } = paragraphsAndQuestions();
  for (const n of sizes) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-index-'));
    const dir = new DataDir(root);
    try {
      const documents: Document[] = [];
      let textBytes = 0;
      for (let d = 0; d < n / BLOCKS_PER_DOC; d++) {
        const blocks = Array.from({ length: BLOCKS_PER_DOC }, (_, b) => {
          const text = `${paragraphs[(d * BLOCKS_PER_DOC + b) % paragraphs.length]} (#${d}.${b})`;
          textBytes += Buffer.byteLength(text);
          return { block_id: `b${d}x${b}`, block_index: b, section_path: 'Body', text, token_count: 100, location: { kind: 'page' as const, page: 1 } };
        });
        documents.push({
          doc_id: `d${String(d).padStart(8, '0')}`, path: `/bench/${d}.pdf`, title: `Doc ${d}`, source_label: 'bench', aliases: [], lang: 'en', format: 'pdf',
          content_hash: String(d), byte_size: 1, encoding: null, page_count: 1,
          sections: [{ path: 'Body', title: 'Body', ordinal: 1, depth: 1, parent_path: null, direct_blocks: BLOCKS_PER_DOC, subtree_blocks: BLOCKS_PER_DOC, direct_tokens: 1000, subtree_tokens: 1000, first_sentence: '', location: null }],
          blocks,
        });
      }
      const next = rand32(n);
      const matrix = new Float32Array(n * DIMS);
      for (let i = 0; i < matrix.length; i++) matrix[i] = next();

      // Build: keyword index, normalised vectors, files written and fsynced (embedding latency excluded).
      const id = `bench-${n}`;
      const folder = dir.snapshotDir(id);
      fs.mkdirSync(folder, { recursive: true });
      let t = performance.now();
      const bm25 = buildBm25(documents.flatMap((d) => d.blocks.map((b) => b.text)));
      normalizeRows(matrix, DIMS);
      await writeIndexFiles(folder, documents, bm25, matrix);
      const buildMs = performance.now() - t;
      const manifest: SnapshotManifest = {
        formatVersion: SNAPSHOT_FORMAT_VERSION, id, parent: null, state: 'ready', created_at: new Date().toISOString(), finished_at: null, app_version: 'bench',
        sources: [], documents: [], failed_documents: [], chunking: DEFAULT_INGEST_OPTIONS.chunking, tokenizer: 't', keyword_tokenizer: 'k',
        embedding: { provider: 'openai-compatible', family: 'bench', model: 'random', dimensions: DIMS }, fusion: { method: 'rrf', k: 60, depth: 50 },
        stats: { documents: documents.length, blocks: n, failed_documents: 0, reused_documents: 0, embedded_blocks: 0, cached_embeddings: 0, embedding_tokens: 0, embedding_requests: 0, durations_ms: { ingest: 0, embed: 0, index: 0, write: 0 } },
        error: null,
      };
      await writeVersioned(path.join(folder, FILES.manifest), manifest);
      const files = Object.values(FILES).map((f) => path.join(folder, f));
      const bytes = files.reduce((s, f) => s + fs.statSync(f).size, 0);
      rows.push({ name: `index.${n / 1000}k.build_ms (bm25 + vectors + write)`, value: buildMs, unit: 'ms', floor: null, ratio: null });
      rows.push({ name: `index.${n / 1000}k.bytes_on_disk`, value: bytes / 1e6, unit: 'MB', floor: (textBytes + matrix.byteLength) / 1e6, ratio: bytes / (textBytes + matrix.byteLength) });

      // Cold load vs raw read of the same files.
      const rawRead = () => {
        const s = performance.now();
        for (const f of files) fs.readFileSync(f);
        return performance.now() - s;
      };
      const raw = Math.min(rawRead(), rawRead());
      documents.length = 0;
      gc();
      const mem = () => { const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
      const memBefore = mem();
      t = performance.now();
      const snap = await loadSnapshot(dir, id);
      const loadMs = performance.now() - t;
      gc();
      const memAfter = mem();
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
        bruteForce(snap.vectors!.matrix, qv[i]!, DIMS);
        brute.push(performance.now() - s);
      });
      const bruteP95 = percentile(brute, 95);
      rows.push({ name: `index.${n / 1000}k.hybrid_query_p50_ms`, value: percentile(hybrid, 50), unit: 'ms', floor: percentile(brute, 50), ratio: percentile(hybrid, 50) / percentile(brute, 50) });
      rows.push({ name: `index.${n / 1000}k.hybrid_query_p95_ms`, value: percentile(hybrid, 95), unit: 'ms', floor: bruteP95, ratio: percentile(hybrid, 95) / bruteP95, target: '<= 3' });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  return rows;
}
