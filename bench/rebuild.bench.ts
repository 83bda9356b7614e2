import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSnapshot } from '../src/index/build-snapshot';
import { DataDir } from '../src/index/data-dir';
import { EmbeddingConfig } from '../src/index/embedding-client';
import { createIngestPool } from '../src/index/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../src/index/model';
import { addSources } from '../src/index/sources';
import { FakeOpenAIServer } from '../test/fakes/openai-server';
import type { BenchRow } from './report';

/** The issue measures at 10k and 100k blocks of 1,024 dimensions: 1,000 and 10,000 files of 10 blocks. */
const DIMS = 1024;
const DEFAULT_FILES = [1000, 10_000];

/** `DOCQA_BENCH_REBUILD_FILES=1000` runs one size only (the 100k-block case takes minutes). */
export async function rebuildBench(): Promise<BenchRow[]> {
  const sizes = process.env.DOCQA_BENCH_REBUILD_FILES ? process.env.DOCQA_BENCH_REBUILD_FILES.split(',').map(Number) : DEFAULT_FILES;
  const rows: BenchRow[] = [];
  for (const files of sizes) rows.push(...(await rebuildAt(files)));
  return rows;
}

/** Full rebuild vs rebuild after one file changed, FILES files × 10 blocks × 1,024 dimensions, embeddings served locally. */
async function rebuildAt(FILES: number): Promise<BenchRow[]> {
  const server = await new FakeOpenAIServer().start();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-rebuild-'));
  const notes = path.join(root, 'notes');
  fs.mkdirSync(notes);
  for (let i = 0; i < FILES; i++) {
    const paras = Array.from({ length: 10 }, (_, p) => `## Part ${p}\n\nNote ${i} part ${p}: ${'words about topic '.repeat(12)}number ${i * 10 + p}.`);
    fs.writeFileSync(path.join(notes, `n${i}.md`), `# Note ${i}\n\n${paras.join('\n\n')}\n`);
  }
  const dir = new DataDir(path.join(root, 'store'));
  await addSources(dir, [notes]);
  const embedding = EmbeddingConfig.parse({ provider: 'openai-compatible', base_url: server.baseURL, model: 'fake', dimensions: DIMS, batch_size: 256 });
  const pool = createIngestPool(DEFAULT_INGEST_OPTIONS, path.join(__dirname, '..', 'dist', 'ingest-worker.js'));
  const build = async () => {
    // Each build starts from a collected heap (the bench runs with --expose-gc): a full build's garbage
    // is not billed to the next one.
    (globalThis as { gc?: () => void }).gc?.();
    const t = performance.now();
    const r = await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding, embeddingApiKey: '', pool });
    return { ms: performance.now() - t, r };
  };
  try {
    await build(); // fills the embedding cache
    // A full rebuild: no parent, so every file is parsed again (embeddings still cached). Best of two.
    const fulls = [];
    for (let k = 0; k < 2; k++) {
      fs.rmSync(dir.activeFile);
      fulls.push(await build());
    }
    const full = fulls.reduce((a, b) => (a.ms <= b.ms ? a : b));
    // One file changed, five times over (a different file each time): the median.
    const incs = [];
    for (let k = 0; k < 5; k++) {
      fs.appendFileSync(path.join(notes, `n${100 + 200 * k}.md`), `\n## Added ${k}\n\nOne new paragraph, number ${k}.\n`);
      const inc = await build();
      if (inc.r.manifest.stats.reused_documents !== FILES - 1) throw new Error(`expected ${FILES - 1} reused documents, got ${inc.r.manifest.stats.reused_documents}`);
      incs.push(inc);
    }
    const inc = incs.sort((a, b) => a.ms - b.ms)[2]!;
    return [
      { name: `rebuild.${FILES}_files.full_ms (embeddings cached)`, value: full.ms, unit: 'ms', floor: null, ratio: null },
      { name: `rebuild.${FILES}_files.one_file_changed_ms (median of 5)`, value: inc.ms, unit: 'ms', floor: full.ms, ratio: inc.ms / full.ms, target: '<= 0.05' },
      { name: `rebuild.${FILES}_files.one_file_changed.segments`, value: inc.r.manifest.segments.length, unit: 'segments', floor: null, ratio: null },
      ...(['ingest', 'embed', 'index', 'write'] as const).map((stage) => ({ name: `rebuild.${FILES}_files.one_file_changed.${stage}_ms`, value: inc.r.manifest.stats.durations_ms[stage], unit: 'ms', floor: full.r.manifest.stats.durations_ms[stage], ratio: inc.r.manifest.stats.durations_ms[stage] / Math.max(1, full.r.manifest.stats.durations_ms[stage]) })),
    ];
  } finally {
    await pool.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
