/**
 * Harness overhead per agent turn at 100k blocks: a run whose model answers instantly (in-process, no
 * HTTP), so that everything but the tools is the harness's own work — prompt rendering and counting,
 * parsing, tracking, admission, dispatch. Reported as a ratio to the tools' own time in the same run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAgent, type ChatModel } from '../src/harness/agent-loop';
import { Budgets } from '../src/harness/budget';
import { baselineDir, loadBundle } from '../src/harness/prompt-bundle';
import { DataDir } from '../src/index/data-dir';
import type { Document } from '../src/index/model';
import { loadSnapshot } from '../src/index/snapshot-store';
import { normalizeRows } from '../src/index/vector-index';
import { qaParagraphs, seededRandom, writeBenchSnapshot } from './fixtures';
import type { BenchRow } from './report';

const DOCS = 100;
const PER_DOC = 1000;
const DIMS = 256;

export async function harnessBench(): Promise<BenchRow[]> {
  const { paragraphs, questions } = qaParagraphs();
  if (paragraphs.length === 0) return [];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-harness-'));
  try {
    const documents: Document[] = Array.from({ length: DOCS }, (_, d) => ({
      doc_id: `d${String(d).padStart(4, '0')}`, path: `/b/${d}.md`, title: `Book ${d}`, source_label: 'bench', aliases: [], lang: 'en', format: 'markdown', content_hash: 'h', byte_size: 1, encoding: null, page_count: null,
      sections: [{ path: 'Body', title: 'Body', ordinal: 1, depth: 1, parent_path: null, direct_blocks: PER_DOC, subtree_blocks: PER_DOC, direct_tokens: 0, subtree_tokens: 0, first_sentence: '', location: null }],
      blocks: Array.from({ length: PER_DOC }, (_, b) => ({ block_id: `b${b}`, block_index: b, section_path: 'Body', text: paragraphs[(d * PER_DOC + b) % paragraphs.length]!, token_count: 150, location: { kind: 'lines' as const, line_start: 1, line_end: 1 } })),
    }));
    const rnd = seededRandom(5);
    const matrix = Float32Array.from({ length: DOCS * PER_DOC * DIMS }, rnd);
    normalizeRows(matrix, DIMS);
    const dir = new DataDir(root);
    await writeBenchSnapshot(dir, 'bench-harness', documents, matrix, DIMS);
    const snapshot = await loadSnapshot(dir, 'bench-harness');
    const bundle = await loadBundle(path.join(baselineDir(), 'baseline-en'));
    const qv = Float32Array.from({ length: DIMS }, rnd);
    const turnsPerRun = 6;
    let toolMs = 0;
    let totalMs = 0;
    let turns = 0;
    for (let runNo = 0; runNo < 5; runNo++) {
      let call = 0;
      // Five searches, each rating the previous result, then Finish.
      const model: ChatModel = {
        async complete() {
          call++;
          if (call >= turnsPerRun) return { content: 'Thought: done.\nAction: Finish[ok]', reasoning: '', finish_reason: 'stop', usage: null };
          const prev = call > 1 ? `, "previous_observation": {"tool_call_id": "call-${call - 1}", "information_gain": "GAINED"}` : '';
          return { content: `Thought: search.\nAction: search_blocks[{"input": {"query": ${JSON.stringify(questions[(runNo * 10 + call) % questions.length])}}${prev}}]`, reasoning: '', finish_reason: 'stop', usage: null };
        },
      };
      let toolStart = 0;
      const t = performance.now();
      const r = await runAgent({
        question: 'benchmark question',
        snapshot,
        model,
        bundle,
        budgets: Budgets.parse({ max_context_tokens: 1_000_000, max_request_tokens: 10_000_000 }),
        embedQuery: async () => qv,
        onEvent: (e) => {
          if (e.type === 'tool_requested') toolStart = performance.now();
          if (e.type === 'tool_result') toolMs += performance.now() - toolStart;
        },
      });
      totalMs += performance.now() - t;
      turns += r.counts.agent_turns;
      if (r.release.status !== 'SUCCESS' || r.counts.tool_calls !== turnsPerRun - 1) throw new Error(`unexpected run: ${JSON.stringify(r.release)} ${JSON.stringify(r.counts)}`);
    }
    const overhead = totalMs - toolMs;
    return [
      { name: 'harness.100k.overhead_per_turn_ms', value: overhead / turns, unit: 'ms', floor: toolMs / turns, ratio: overhead / toolMs, target: '<= 0.1' },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
