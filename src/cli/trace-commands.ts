import type { Command } from 'commander';
import { UsageError } from '../common/errors';
import type { CommandContext } from './command-context';
import { formatTrace } from './trace-format';
import { readTrace } from '../trace/trace-store';

export function registerTraceCommands(program: Command, { io, json, app }: CommandContext): void {
  const trace = program.command('trace').description('look at what a run did: list, show, prompt, replay, export');

  trace
    .command('list')
    .description('runs with a trace, newest first')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const rows = await app().listTraces();
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
      const a = app();
      await a.open();
      if (o.json) return json(await a.showTrace(runId));
      io.stdout(formatTrace(await readTrace(a.dir, runId)));
    });

  trace
    .command('prompt')
    .description('exactly what the model was sent in one turn (needs a full trace)')
    .argument('<run_id>')
    .requiredOption('--turn <k>', 'the turn, from 1')
    .option('--json', 'print the messages as JSON')
    .action(async (runId: string, o: { turn: string; json?: boolean }) => {
      if (!/^[1-9]\d*$/.test(o.turn)) throw new UsageError('--turn must be a turn number from 1');
      const messages = await app().promptOfTurn(runId, Number(o.turn));
      if (o.json) return json(messages);
      for (const m of messages) io.stdout(`----- ${m.role} -----\n${m.content}\n`);
    });

  trace
    .command('replay')
    .description("re-run a trace's tool calls on the snapshot it used and report identical or changed results")
    .argument('<run_id>')
    .option('--json', 'print JSON')
    .action(async (runId: string, o: { json?: boolean }) => {
      const report = await app(['embedding-if-set']).replayTrace(runId);
      if (o.json) return json(report);
      io.stdout(`replay of ${runId} on snapshot ${report.snapshot_id}: ${report.calls.length} tool calls\n`);
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
    });

  trace
    .command('export')
    .description('send a trace to an OpenTelemetry collector over OTLP/HTTP (optional)')
    .argument('<run_id>')
    .requiredOption('--otlp <url>', 'the collector’s traces endpoint, e.g. http://127.0.0.1:4318/v1/traces')
    .action(async (runId: string, o: { otlp: string }) => {
      const r = await app().exportTrace(runId, o.otlp);
      io.stdout(`exported ${r.spans} spans of ${runId} to ${o.otlp}\n`);
    });
}
