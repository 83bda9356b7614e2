import type { Command } from 'commander';
import { UsageError } from '../common/errors';
import type { CommandContext } from './command-context';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function registerEvalCommands(program: Command, { io, json, app }: CommandContext): void {
  const ev = program.command('eval').description('measure answers against a gold set, and compare evaluations');

  ev.command('run')
    .description('run every case of a JSONL gold set (N times each) with deterministic checks')
    .argument('<goldset>')
    .option('--repeat <n>', 'runs per case (flips between repeats are reported)', '1')
    .option('--prompt <id>', 'prompt bundle for every case (it is frozen); default: as `ask` chooses')
    .option('--json', 'print the saved evaluation as JSON')
    .action(async (file: string, o: { repeat: string; prompt?: string; json?: boolean }) => {
      if (!/^[1-9]\d*$/.test(o.repeat) || Number(o.repeat) > 100) throw new UsageError('--repeat must be a whole number from 1 to 100');
      const { record, saved } = await app(['run', 'chat', 'embedding-if-set']).evaluate(file, { repeat: Number(o.repeat), prompt: o.prompt });
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
    });

  ev.command('diff')
    .description('compare two saved evaluations: pass rates, cases that moved, manifest differences')
    .argument('<a>')
    .argument('<b>')
    .option('--json', 'print JSON')
    .action(async (a: string, b: string, o: { json?: boolean }) => {
      const d = await app().diffEvals(a, b);
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
