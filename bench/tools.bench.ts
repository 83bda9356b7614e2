/**
 * The tools at 100k blocks (50 documents × 2,000 blocks, 1,024-dimension vectors), through runTool
 * (validation, payload and token estimate included, query embedding excluded): list_blocks of a whole
 * 2,000-block document, scan_term over the whole collection, search_blocks; p50/p95 each. Floor for
 * scan_term: a plain String.prototype.includes loop over pre-normalised texts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDir } from '../src/common/data-dir';
import { countTokens } from '../src/common/tokenizer';
import type { Document } from '../src/shared/document';
import { loadSnapshot } from '../src/index/store/snapshot-store';
import { normalizeRows } from '../src/index/search/vector-index';
import { runTool } from '../src/tools/registry';
import type { ToolContext, ToolName } from '../src/tools/tool';
import { qaParagraphs, seededRandom, writeBenchSnapshot } from './fixtures';
import type { BenchRow } from './report';

const DOCS = 50;
const PER_DOC = 2000;
const DIMS = 1024;

function percentile(v: number[], p: number): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export async function toolsBench(): Promise<BenchRow[]> {
  // The tokenizer loads its ranks at the first count; load them before the snapshot, so that promoting
  // them is not timed as the first scan's latency (they are loaded once per process, not per call).
  countTokens('load the ranks');
  const { paragraphs, questions } = qaParagraphs();
  if (paragraphs.length === 0) return [];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-tools-'));
  try {
    const documents: Document[] = [];
    for (let d = 0; d < DOCS; d++) {
      const sections = Array.from({ length: 20 }, (_, s) => ({ path: `Chapter ${s}`, title: `Chapter ${s}`, ordinal: s + 1, depth: 1, parent_path: null, direct_blocks: 100, subtree_blocks: 100, direct_tokens: 0, subtree_tokens: 0, first_sentence: '', location: null }));
      documents.push({
        doc_id: `d${String(d).padStart(4, '0')}`, path: `/b/${d}.pdf`, title: `Book ${d}`, source_label: 'bench', aliases: [], lang: 'en', format: 'pdf', content_hash: 'h', byte_size: 1, encoding: null, page_count: 1,
        sections,
        blocks: Array.from({ length: PER_DOC }, (_, b) => ({ block_id: `b${b}`, block_index: b, section_path: `Chapter ${Math.floor(b / 100)}`, text: paragraphs[(d * PER_DOC + b) % paragraphs.length]!, token_count: 0, location: { kind: 'page' as const, page: 1 } })),
      });
    }
    const rnd = seededRandom(3);
    const matrix = Float32Array.from({ length: DOCS * PER_DOC * DIMS }, rnd);
    normalizeRows(matrix, DIMS);
    const dir = new DataDir(root);
    const id = 'bench-tools';
    await writeBenchSnapshot(dir, id, documents, matrix, DIMS);
    const snapshot = await loadSnapshot(dir, id);
    const qv = Float32Array.from({ length: DIMS }, rnd);
    const ctx: ToolContext = { snapshot, embedQuery: async () => ({ vector: qv, tokens: 1, estimated: false }) };
    const time = async (name: ToolName, inputs: unknown[]) => {
      await runTool(name, inputs[0], ctx); // warm-up (scan_term folds the collection once per snapshot)
      const out: number[] = [];
      for (const input of inputs) {
        const t = performance.now();
        await runTool(name, input, ctx);
        out.push(performance.now() - t);
      }
      return out;
    };
    // Words a learner scans for (a stop word would return every block, far past any context budget).
    const terms = ['energy', '中国', 'university', 'Denver', 'oxygen', '北京', 'Broncos', 'water', 'protein', 'Napoleon'];
    const rows: BenchRow[] = [];
    const lb = await time('list_blocks', Array.from({ length: 20 }, (_, i) => ({ doc_id: documents[i % DOCS]!.doc_id })));
    const st = await time('scan_term', Array.from({ length: 20 }, (_, i) => ({ term: terms[i % terms.length]! })));
    const sb = await time('search_blocks', questions.slice(0, 20).map((q) => ({ query: q })));
    // Floor: includes over pre-normalised texts.
    const folded = documents.flatMap((d) => d.blocks.map((b) => b.text.normalize('NFC').toLowerCase()));
    const floor: number[] = [];
    for (let i = 0; i < 20; i++) {
      const needle = terms[i % terms.length]!.toLowerCase();
      const t = performance.now();
      let n = 0;
      for (const f of folded) if (f.includes(needle)) n++;
      floor.push(performance.now() - t + (n < 0 ? 1 : 0));
    }
    rows.push({ name: 'tools.100k.list_blocks_2000_p50_ms', value: percentile(lb, 50), unit: 'ms', floor: null, ratio: null });
    rows.push({ name: 'tools.100k.list_blocks_2000_p95_ms', value: percentile(lb, 95), unit: 'ms', floor: 100, ratio: percentile(lb, 95) / 100, target: '<= 1' });
    rows.push({ name: 'tools.100k.scan_term_p50_ms', value: percentile(st, 50), unit: 'ms', floor: percentile(floor, 50), ratio: percentile(st, 50) / percentile(floor, 50), target: '<= 2' });
    rows.push({ name: 'tools.100k.scan_term_p95_ms', value: percentile(st, 95), unit: 'ms', floor: 100, ratio: percentile(st, 95) / 100, target: '<= 1' });
    rows.push({ name: 'tools.100k.search_blocks_p50_ms', value: percentile(sb, 50), unit: 'ms', floor: null, ratio: null });
    rows.push({ name: 'tools.100k.search_blocks_p95_ms', value: percentile(sb, 95), unit: 'ms', floor: 100, ratio: percentile(sb, 95) / 100, target: '<= 1' });
    return rows;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
