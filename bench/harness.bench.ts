/**
 * Harness overhead per agent turn at 100k blocks: a run whose model answers instantly (in-process, no
 * HTTP), so that everything but the tools is the harness's own work — prompt rendering and counting,
 * parsing, tracking, admission, dispatch. Reported as a ratio to the tools' own time in the same run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAgent, type ChatModel } from '../src/harness/agent-loop';
import { RunLimits } from '../src/harness/run-limits';
import { baselineDir, loadBundle } from '../src/harness/prompt-bundle';
import { DataDir } from '../src/common/data-dir';
import type { Document } from '../src/shared/document';
import { loadSnapshot } from '../src/index/store/snapshot-store';
import { normalizeRows } from '../src/index/search/vector-index';
import { qaParagraphs, seededRandom, writeBenchSnapshot } from './fixtures';
import type { BenchRow } from './report';
import { Redactor } from '../src/common/redact';
import type { TraceMode } from '../src/shared/trace-model';
import { PLACEHOLDER_MANIFEST } from '../test/helpers';
import { TraceWriter } from '../src/trace/trace-writer';
import { Tracer } from '../src/trace/tracer';


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
    // The same runs without a trace, with a metadata trace and with a full trace, each written to disk by
    // the real background writer: the trace's cost to the answer is the difference.
    const measure = async (mode: TraceMode | null) => {
      let toolMs = 0;
      let totalMs = 0;
      let closeMs = 0;
      let turns = 0;
      for (let runNo = 0; runNo < 5; runNo++) {
        let call = 0;
        // Five searches, each rating the previous result, then Finish.
        const model: ChatModel = {
          async complete() {
            call++;
            if (call >= turnsPerRun) return { content: 'Thought: done.\nAction: Finish[ok]', reasoning: '', finish_reason: 'stop', usage: null, model: null };
            const prev = call > 1 ? `, "previous_observation": {"tool_call_id": "call-${call - 1}", "information_gain": "GAINED"}` : '';
            return { content: `Thought: search.\nAction: search_blocks[{"input": {"query": ${JSON.stringify(questions[(runNo * 10 + call) % questions.length])}}${prev}}]`, reasoning: '', finish_reason: 'stop', usage: null, model: null };
          },
        };
        const writer = mode ? new TraceWriter(`run${runNo}`, path.join(root, 'traces', `${mode}-${runNo}`), new Redactor(['sk-bench-key-0000'])) : null;
        let toolStart = 0;
        const t = performance.now();
        const r = await runAgent({
          question: 'benchmark question',
          snapshot,
          model,
          bundle,
          run: RunLimits.parse({ budgets: { max_context_tokens: 1_000_000, max_request_tokens: 10_000_000 } }),
          embedQuery: async () => ({ vector: qv, tokens: 1, estimated: false }),
          tracer: mode && writer ? new Tracer(mode, writer) : undefined,
          onEvent: (e) => {
            if (e.type === 'tool_requested') toolStart = performance.now();
            if (e.type === 'tool_result') toolMs += performance.now() - toolStart;
          },
        });
        totalMs += performance.now() - t;
        if (writer) {
          const c = performance.now();
          const o = await writer.close({ trace_id: '0'.repeat(32), mode: mode!, started_at: new Date().toISOString(), question: 'q', manifest: PLACEHOLDER_MANIFEST, release: r.release, stop_reason: null, counts: {}, tokens: { prompt: 0, completion: 0, embedding: 0 } });
          closeMs += performance.now() - c;
          if (o.partial) throw new Error(`bench trace partial: ${o.writer_error}`);
        }
        turns += r.counts.agent_turns;
        if (r.release.status !== 'SUCCESS' || r.counts.tool_calls !== turnsPerRun - 1) throw new Error(`unexpected run: ${JSON.stringify(r.release)} ${JSON.stringify(r.counts)}`);
      }
      return { overhead: (totalMs - toolMs) / turns, tool: toolMs / turns, close: closeMs / 5 };
    };
    await measure(null); // warm-up: JIT and the tokenizer cache, so the three modes are compared warm
    const plain = await measure(null);
    const meta = await measure('metadata');
    const full = await measure('full');
    return [
      { name: 'harness.100k.overhead_per_turn_ms', value: plain.overhead, unit: 'ms', floor: plain.tool, ratio: plain.overhead / plain.tool, target: '<= 0.1' },
      { name: 'harness.100k.overhead_per_turn_ms.trace_metadata', value: meta.overhead, unit: 'ms', floor: meta.tool, ratio: meta.overhead / meta.tool, target: '<= 0.1' },
      { name: 'harness.100k.overhead_per_turn_ms.trace_full', value: full.overhead, unit: 'ms', floor: full.tool, ratio: full.overhead / full.tool, target: '<= 0.1' },
      // Waiting for the writer after the answer is released (what `ask` adds before it exits).
      { name: 'harness.trace_close_ms.full', value: full.close, unit: 'ms', floor: full.tool * turnsPerRun, ratio: full.close / (full.tool * turnsPerRun), target: 'informational' },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
