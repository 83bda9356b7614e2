import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocQaError, errorMessage } from '../common/errors';
import { Redactor } from '../common/redact';
import { type EvalRecord, saveEval } from '../eval/eval-store';
import { runEval } from '../eval/eval-run';
import { parseGoldset } from '../eval/goldset';
import { activeBundle, freezeBundle } from '../harness/prompt-store';
import { openSnapshotHandle } from '../tools/snapshot-handle';
import { type AskContext, chatFor, questionLanguage, runBase, withBudgets } from './ask';
import { queryEmbedding } from './query-embedding';
import { runTraced } from './traced-run';

export interface EvalOptions {
  repeat: number;
  /** One prompt bundle for every case (it is frozen); default: as ask chooses. */
  prompt?: string;
  signal?: AbortSignal;
  /** After each run: the case, the repeat, whether it passed. */
  onRun?: (caseId: string, repeat: number, pass: boolean) => void;
}

/**
 * Runs a JSONL gold set N times on one pinned snapshot with deterministic checks, traced like any
 * question, and saves the evaluation (redacted like a trace). Every bundle it uses is frozen.
 */
export async function evaluateGoldset(ctx: AskContext, file: string, o: EvalOptions): Promise<{ record: EvalRecord; saved: string }> {
  let text: Buffer;
  try {
    text = await fs.readFile(file);
  } catch (err) {
    throw new DocQaError('not_found', `cannot read the gold set ${file}: ${errorMessage(err)}`);
  }
  const cases = parseGoldset(text.toString('utf8'), file);
  const handle = await openSnapshotHandle(ctx.dir, ctx.lru);
  if (!handle) throw new DocQaError('collection_unavailable', `no snapshot is active; build one with ${ctx.words.buildCommand}`);
  try {
    const [chatKey, embeddingKey] = await Promise.all([ctx.keys.chat(), ctx.keys.embedding()]);
    const chat = await chatFor(ctx, chatKey, { signal: o.signal });
    const redactor = new Redactor([chatKey, embeddingKey]);
    const embedQuery = queryEmbedding(handle.snapshot, ctx.settings, embeddingKey, ctx.words, false);
    const record = await runEval({
      cases,
      repeat: o.repeat,
      goldset: { path: path.resolve(file), sha256: crypto.createHash('sha256').update(text).digest('hex') },
      onRun: o.onRun,
      signal: o.signal,
      runOne: async (c) => {
        o.signal?.throwIfAborted();
        const lang = c.lang ?? questionLanguage(c.question);
        const chosen = await activeBundle(ctx.dir, lang, o.prompt);
        // A bundle an evaluation used is frozen: its results must stay attributable to this content.
        const bundle = await freezeBundle(ctx.dir, chosen.id);
        const tools: string[] = [];
        const run = await runTraced({
          ...runBase(ctx),
          settings: withBudgets(ctx.settings, chat.budgets),
          contextWindow: chat.window,
          question: c.question,
          snapshot: handle.snapshot,
          embedQuery,
          model: chat.model,
          bundle,
          lang,
          keepTraces: Math.max(ctx.settings.trace.keep, cases.length * o.repeat),
          redactor,
          signal: o.signal,
          onEvent: (e) => e.type === 'tool_requested' && tools.push(e.tool),
        });
        await run.trace;
        return { run_id: run.run_id, manifest: run.manifest, result: run.result, tools_called: tools };
      },
    });
    // Questions and run errors can carry a pasted or echoed key: the saved file is redacted like a trace.
    const saved = await saveEval(ctx.dir, redactor.redactValue(record));
    return { record, saved };
  } finally {
    await handle.release();
  }
}
