import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { DocQaError, UsageError } from '../common/errors';
import { SnapshotLru } from '../index/store/snapshot-lru';
import { openSnapshotHandle } from '../tools/snapshot-handle';
import { exportOtlp } from '../trace/otlp-export';
import { replayToolCalls } from '../app/replay';
import { listTraces, readTrace, spanTree } from '../trace/trace-store';
import { redactorFromEnv } from './cli-env';
import type { CommandContext } from './command-context';
import { formatTrace } from './trace-format';
import pkg from '../../package.json';

export function registerTraceCommands(program: Command, { io, store, json, queryEmbedder }: CommandContext): void {
  const trace = program.command('trace').description('look at what a run did: list, show, prompt, replay, export');

  trace
    .command('list')
    .description('runs with a trace, newest first')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const rows = await listTraces(store());
      if (o.json) return json(rows);
      if (rows.length === 0) return io.stdout('no traces yet; `docqa ask` records one per question\n');
      for (const r of rows) {
        const q = (r.question ?? '(incomplete trace)').replace(/\s+/g, ' ');
        io.stdout(`${r.run_id}  ${(r.status ?? '?').padEnd(9)} ${(r.mode ?? '?').padEnd(8)}${r.partial ? ' partial' : ''}  ${q.length > 70 ? `${q.slice(0, 69)}…` : q}\n`);
      }
    });

  trace
    .command('show')
    .description('the span tree of one run, with durations, statuses and tokens')
    .argument('<run_id>')
    .option('--json', 'print JSON (meta, manifest and the span tree with every attribute)')
    .action(async (runId: string, o: { json?: boolean }) => {
      const t = await readTrace(store(), runId);
      if (o.json) return json({ run_id: t.run_id, meta: t.meta, unreadable_lines: t.unreadable_lines, spans: spanTree(t.spans) });
      io.stdout(formatTrace(t));
    });

  trace
    .command('prompt')
    .description('exactly what the model was sent in one turn (needs a full trace)')
    .argument('<run_id>')
    .requiredOption('--turn <k>', 'the turn, from 1')
    .option('--json', 'print the messages as JSON')
    .action(async (runId: string, o: { turn: string; json?: boolean }) => {
      if (!/^[1-9]\d*$/.test(o.turn)) throw new UsageError('--turn must be a turn number from 1');
      const t = await readTrace(store(), runId);
      if (t.meta?.mode !== 'full') throw new DocQaError('trace_mode', `run ${runId} was traced in ${t.meta?.mode ?? 'an unknown'} mode, which keeps no prompts; ask again with --trace full (or DOCQA_TRACE=full)`);
      const turns = t.spans.filter((s) => s.kind === 'turn');
      const turn = turns.find((s) => s.attributes.turn === Number(o.turn));
      if (!turn) throw new DocQaError('invalid_argument', `run ${runId} has turns 1–${turns.length}, not ${o.turn}`);
      const call = t.spans.filter((s) => s.kind === 'llm_call' && s.parent_id === turn.span_id).sort((a, b) => a.start_ms - b.start_ms)[0];
      const id = ((call?.attributes.artifacts as string[] | undefined) ?? []).find((a) => t.artifacts.get(a)?.kind === 'prompt');
      const artifact = id ? t.artifacts.get(id) : undefined;
      if (!artifact) throw new DocQaError('trace_incomplete', `the prompt of turn ${o.turn} is missing from the trace of ${runId}${t.meta?.partial ? ' (the trace is partial)' : ''}`);
      const messages = JSON.parse(artifact.content) as Array<{ role: string; content: string }>;
      if (o.json) return json(messages);
      for (const m of messages) io.stdout(`----- ${m.role} -----\n${m.content}\n`);
    });

  trace
    .command('replay')
    .description("re-run a trace's tool calls on the snapshot it used and report identical or changed results")
    .argument('<run_id>')
    .option('--json', 'print JSON')
    .action(async (runId: string, o: { json?: boolean }) => {
      const dir = store();
      const t = await readTrace(dir, runId);
      const snapshotId = t.meta?.manifest.snapshot.id ?? (t.spans.find((s) => s.kind === 'request')?.attributes.snapshot_id as string | undefined);
      if (!snapshotId) throw new DocQaError('trace_incomplete', `the trace of ${runId} does not say which snapshot it used`);
      if (!existsSync(dir.snapshotDir(snapshotId))) {
        throw new DocQaError('snapshot_not_found', `run ${runId} used snapshot ${snapshotId}, which has been deleted (by retention or by hand); its tool calls cannot be replayed`);
      }
      const handle = await openSnapshotHandle(dir, new SnapshotLru(dir, 1), snapshotId);
      if (!handle) throw new DocQaError('snapshot_not_found', `snapshot ${snapshotId} cannot be opened`);
      try {
        const report = await replayToolCalls(t, handle.snapshot, queryEmbedder(handle.snapshot));
        if (o.json) return json(report);
        io.stdout(`replay of ${runId} on snapshot ${snapshotId}: ${report.calls.length} tool calls\n`);
        for (const c of report.calls) {
          const detail = c.identical ? '' : `  (${[c.added_refs.length ? `+${c.added_refs.length} refs` : '', c.missing_refs.length ? `-${c.missing_refs.length} refs` : '', c.reordered ? 'reordered' : '', !c.added_refs.length && !c.missing_refs.length && !c.reordered ? 'payload differs' : ''].filter(Boolean).join(', ')})`;
          if (c.error) io.stdout(`  ${c.tool_call_id} ${c.tool} ${JSON.stringify(c.input)}: NOT RE-RUN (${c.error})\n`);
          else io.stdout(`  ${c.tool_call_id} ${c.tool} ${JSON.stringify(c.input)}: ${c.identical ? 'identical' : 'CHANGED'}${detail}\n`);
        }
        const notRun = report.calls.filter((c) => c.error).length;
        const changed = report.calls.filter((c) => !c.error && !c.identical).length;
        if (report.identical) io.stdout('all results identical\n');
        if (changed) io.stdout(`${changed} result(s) changed\n`);
        if (notRun) io.stdout(`${notRun} call(s) could not be re-run (configure the embedding endpoint the snapshot was built with)\n`);
      } finally {
        await handle.release();
      }
    });

  trace
    .command('export')
    .description('send a trace to an OpenTelemetry collector over OTLP/HTTP (optional)')
    .argument('<run_id>')
    .requiredOption('--otlp <url>', 'the collector’s traces endpoint, e.g. http://127.0.0.1:4318/v1/traces')
    .action(async (runId: string, o: { otlp: string }) => {
      const t = await readTrace(store(), runId);
      const r = await exportOtlp(t, o.otlp, pkg.version, redactorFromEnv(io.env));
      io.stdout(`exported ${r.spans} spans of ${runId} to ${o.otlp}\n`);
    });
}
