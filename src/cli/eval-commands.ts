import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { ChatClient } from '../harness/model-client';
import { activeBundle, freezeBundle } from '../harness/prompt-store';
import { DocQaError, UsageError, errorMessage } from '../common/errors';
import { SnapshotLru } from '../index/store/snapshot-lru';
import { openSnapshotHandle } from '../tools/snapshot-handle';
import { runTraced } from '../app/traced-run';
import { diffEvals } from '../eval/eval-diff';
import { runEval } from '../eval/eval-run';
import { loadEval, saveEval } from '../eval/eval-store';
import { parseGoldset } from '../eval/goldset';
import { chatFromEnv, redactorFromEnv, runSettingsFromEnv } from './cli-env';
import { type CommandContext, questionLanguage } from './command-context';
import pkg from '../../package.json';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function registerEvalCommands(program: Command, { io, store, json, queryEmbedder }: CommandContext): void {
  const ev = program.command('eval').description('measure answers against a gold set, and compare evaluations');

  ev.command('run')
    .description('run every case of a JSONL gold set (N times each) with deterministic checks')
    .argument('<goldset>')
    .option('--repeat <n>', 'runs per case (flips between repeats are reported)', '1')
    .option('--prompt <id>', 'prompt bundle for every case (it is frozen); default: as `ask` chooses')
    .option('--json', 'print the saved evaluation as JSON')
    .action(async (file: string, o: { repeat: string; prompt?: string; json?: boolean }) => {
      if (!/^[1-9]\d*$/.test(o.repeat) || Number(o.repeat) > 100) throw new UsageError('--repeat must be a whole number from 1 to 100');
      let text: Buffer;
      try {
        text = await fs.readFile(file);
      } catch (err) {
        throw new DocQaError('not_found', `cannot read the gold set ${file}: ${errorMessage(err)}`);
      }
      const cases = parseGoldset(text.toString('utf8'), file);
      const chat = chatFromEnv(io.env);
      const settings = runSettingsFromEnv(io.env);
      const dir = store();
      const handle = await openSnapshotHandle(dir, new SnapshotLru(dir, 1));
      if (!handle) throw new DocQaError('collection_unavailable', 'no snapshot is active; build one with `docqa index`');
      try {
        const model = new ChatClient(chat.config, chat.apiKey);
        const redactor = redactorFromEnv(io.env);
        const record = await runEval({
          cases,
          repeat: Number(o.repeat),
          goldset: { path: path.resolve(file), sha256: crypto.createHash('sha256').update(text).digest('hex') },
          runOne: async (c) => {
            const chosen = await activeBundle(dir, c.lang ?? questionLanguage(c.question), o.prompt);
            // A bundle an evaluation used is frozen: its results must stay attributable to this content.
            const bundle = await freezeBundle(dir, chosen.id);
            const tools: string[] = [];
            const run = await runTraced({
              dir,
              question: c.question,
              snapshot: handle.snapshot,
              embedQuery: queryEmbedder(handle.snapshot),
              model,
              chat: chat.config,
              bundle,
              budgets: settings.budgets,
              thresholds: settings.thresholds,
              appVersion: pkg.version,
              mode: settings.traceMode,
              keepTraces: Math.max(settings.keepTraces, cases.length * Number(o.repeat)),
              redactor,
              onEvent: (e) => e.type === 'tool_requested' && tools.push(e.tool),
            });
            await run.trace;
            return { run_id: run.run_id, manifest: run.manifest, result: run.result, tools_called: tools };
          },
        });
        // Questions and run errors can carry a pasted or echoed key: the saved file is redacted like a trace.
        const saved = await saveEval(dir, redactor.redactValue(record));
        if (o.json) return json(record);
        for (const c of record.cases) {
          const verdict = c.flips ? 'FLIP' : c.passed === c.runs.length ? 'PASS' : 'FAIL';
          const kinds = [...new Set(c.runs.flatMap((r) => r.failures.map((f) => `${f.type}: ${f.detail}`)))];
          io.stdout(`${verdict.padEnd(4)} ${c.id}  ${c.passed}/${c.runs.length}${kinds.length ? `  ${kinds.join('; ')}` : ''}\n`);
        }
        const s = record.summary;
        io.stdout(`\npass rate ${s.passed}/${s.runs} (${pct(s.pass_rate)})\n`);
        const types = Object.entries(s.failure_types).filter(([, n]) => n > 0);
        if (types.length) io.stdout(`failures: ${types.map(([t, n]) => `${t} ${n}`).join(', ')}\n`);
        if (s.flipping.length) io.stdout(`flipping between repeats: ${s.flipping.join(', ')}\n`);
        io.stdout(`saved ${record.eval_id} (${saved})\n`);
      } finally {
        await handle.release();
      }
    });

  ev.command('diff')
    .description('compare two saved evaluations: pass rates, cases that moved, manifest differences')
    .argument('<a>')
    .argument('<b>')
    .option('--json', 'print JSON')
    .action(async (a: string, b: string, o: { json?: boolean }) => {
      const dir = store();
      const d = diffEvals(await loadEval(dir, a), await loadEval(dir, b));
      if (o.json) return json(d);
      const sign = d.pass_rate.delta > 0 ? '+' : '';
      io.stdout(`pass rate ${pct(d.pass_rate.a)} → ${pct(d.pass_rate.b)} (${sign}${(d.pass_rate.delta * 100).toFixed(1)} points)\n`);
      const moved = d.cases.filter((c) => c.change !== 'same');
      for (const c of moved) io.stdout(`  ${c.change.padEnd(9)} ${c.id}  ${c.a ?? '-'} → ${c.b ?? '-'}\n`);
      if (!moved.length) io.stdout('  no case changed\n');
      if (d.manifest_changes.length) {
        io.stdout('what differs between the runs:\n');
        for (const m of d.manifest_changes) io.stdout(`  ${m.field}: ${JSON.stringify(m.a)} → ${JSON.stringify(m.b)}\n`);
      }
    });
}
