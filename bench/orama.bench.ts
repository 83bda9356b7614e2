/**
 * Why the index is not stored with Orama: the same 10k blocks (SQuAD + CMRC paragraphs, 256-dimension
 * vectors, our CJK-aware tokenizer plugged into Orama) built and persisted with `@orama/orama` +
 * `@orama/plugin-data-persistence` (json), next to DocQA's own layout built and loaded in the same run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { create, insertMultiple, load, type Orama } from '@orama/orama';
import { persist } from '@orama/plugin-data-persistence';
import { DataDir } from '../src/common/data-dir';
import { keywordTokens } from '../src/index/search/keyword-tokenizer';
import type { Document } from '../src/index/model';
import { FILES, loadSnapshot } from '../src/index/store/snapshot-store';
import { normalizeRows } from '../src/index/search/vector-index';
import { qaParagraphs, seededRandom, writeBenchSnapshot } from './fixtures';
import type { BenchRow } from './report';

const N = 10_000;
const DIMS = 256;

const schema = { text: 'string', vector: `vector[${DIMS}]` } as const;
const tokenizer = { language: 'multi', normalizationCache: new Map(), tokenize: (raw: string) => keywordTokens(raw) };
const makeDb = () => create({ schema, components: { tokenizer } }) as unknown as Orama<typeof schema>;

export async function oramaBench(): Promise<BenchRow[]> {
  const { paragraphs } = qaParagraphs();
  if (paragraphs.length === 0) return [];
  const texts = Array.from({ length: N }, (_, i) => `${paragraphs[i % paragraphs.length]} (#${i})`);
  const matrix = Float32Array.from({ length: N * DIMS }, seededRandom(7));
  normalizeRows(matrix, DIMS);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-orama-'));
  try {
    // Orama
    let t = performance.now();
    const db = makeDb();
    await insertMultiple(db, texts.map((text, i) => ({ text, vector: Array.from(matrix.subarray(i * DIMS, (i + 1) * DIMS)) })), 500);
    const oramaBuild = performance.now() - t;
    t = performance.now();
    const json = (await persist(db, 'json')) as string;
    const oramaFile = path.join(root, 'orama.json');
    fs.writeFileSync(oramaFile, json);
    const oramaPersist = performance.now() - t;
    const oramaBytes = fs.statSync(oramaFile).size;
    t = performance.now();
    const restored = makeDb();
    load(restored, JSON.parse(fs.readFileSync(oramaFile, 'utf8')) as never);
    const oramaLoad = performance.now() - t;

    // Ours
    const dir = new DataDir(root);
    const id = 'bench-orama-compare';
    const documents: Document[] = [];
    for (let d = 0; d < N / 10; d++) {
      documents.push({
        doc_id: `d${String(d).padStart(6, '0')}`, path: `/b/${d}`, title: 't', source_label: 's', aliases: [], lang: 'en', format: 'pdf', content_hash: 'h', byte_size: 1, encoding: null, page_count: 1,
        sections: [{ path: 'B', title: 'B', ordinal: 1, depth: 1, parent_path: null, direct_blocks: 10, subtree_blocks: 10, direct_tokens: 0, subtree_tokens: 0, first_sentence: '', location: null }],
        blocks: Array.from({ length: 10 }, (_, b) => ({ block_id: `b${b}`, block_index: b, section_path: 'B', text: texts[d * 10 + b]!, token_count: 0, location: { kind: 'page' as const, page: 1 } })),
      });
    }
    const oursBuild = await writeBenchSnapshot(dir, id, documents, matrix, DIMS);
    const folder = dir.snapshotDir(id);
    const oursBytes = Object.values(FILES).reduce((s, f) => s + fs.statSync(path.join(folder, f)).size, 0);
    t = performance.now();
    await loadSnapshot(dir, id);
    const oursLoad = performance.now() - t;
    return [
      { name: 'persistence.10k_x_256.orama_build_ms (insertMultiple)', value: oramaBuild, unit: 'ms', floor: oursBuild, ratio: oramaBuild / oursBuild },
      { name: 'persistence.10k_x_256.orama_json_persist_ms', value: oramaPersist, unit: 'ms', floor: null, ratio: null },
      { name: 'persistence.10k_x_256.orama_json_MB', value: oramaBytes / 1e6, unit: 'MB', floor: oursBytes / 1e6, ratio: oramaBytes / oursBytes },
      { name: 'persistence.10k_x_256.orama_json_load_ms', value: oramaLoad, unit: 'ms', floor: oursLoad, ratio: oramaLoad / oursLoad },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
