import type { Command } from 'commander';
import type { CommandContext } from './command-context';

export function registerPromptCommands(program: Command, { io, json, app }: CommandContext): void {
  const prompts = program.command('prompts').description('prompt bundles: the read-only release baselines and your experiments');

  prompts
    .command('list')
    .description('every bundle with its content hash; * marks the one `ask` uses')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const rows = await app().listPrompts();
      if (o.json) return json(rows);
      const anyActive = rows.some((r) => r.active);
      for (const r of rows) {
        const active = r.active || (!anyActive && r.origin === 'baseline');
        const status = r.origin === 'baseline' ? 'baseline' : r.frozen ? 'frozen' : 'draft';
        io.stdout(`${active ? '*' : ' '} ${r.id.padEnd(24)} ${r.language}  ${status.padEnd(8)} ${r.version.padEnd(8)} ${r.hash.slice(0, 12)}  parent ${r.parent ?? '-'}${r.problem ? `  PROBLEM: ${r.problem}` : ''}\n`);
      }
      if (!anyActive) io.stdout('(no bundle promoted: `ask` uses the baseline for the question’s language)\n');
    });

  prompts
    .command('new')
    .description('copy a bundle into the data directory to edit it')
    .requiredOption('--from <id>', 'the bundle to start from')
    .option('--id <id>', 'the new bundle’s id (default <from>-expN)')
    .action(async (o: { from: string; id?: string }) => {
      const b = await app().newPrompt(o.from, o.id);
      io.stdout(`created ${b.id} from ${o.from}: edit ${b.path}\n`);
    });

  prompts
    .command('freeze')
    .description('freeze a bundle at its current content (a later edit makes it unusable)')
    .argument('<id>')
    .action(async (id: string) => {
      const b = await app().freezePrompt(id);
      io.stdout(`frozen: ${b.id} ${b.hash.slice(0, 12)}\n`);
    });

  prompts
    .command('promote')
    .description('make a bundle the one `ask` uses (freezes it)')
    .argument('<id>')
    .action(async (id: string) => {
      await app().promotePrompt(id);
      io.stdout(`active prompt bundle: ${id}\n`);
    });

  prompts
    .command('rollback')
    .description('go back to the bundle active before the last promotion')
    .action(async () => {
      const s = await app().rollbackPrompt();
      io.stdout(`active prompt bundle: ${s.active ?? 'the release baseline for each question’s language'}\n`);
    });
}
