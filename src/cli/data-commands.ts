import type { Command } from 'commander';
import type { CommandContext } from './command-context';

export function registerDataCommands(program: Command, { io, json, app }: CommandContext): void {
  const data = program.command('data').description('the data directory itself: its layout version, upgrade backups, data rollback');

  data
    .command('status')
    .description('the layout version, the migrations that brought the directory to it, and the backups they made')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const s = await app().dataStatus();
      if (o.json) return json(s);
      io.stdout(`data directory ${s.root}: layout ${s.layout}\n`);
      for (const m of s.marker?.migrations ?? []) io.stdout(`  upgraded from layout ${m.from} to ${m.to} at ${m.at} by DocQA ${m.app_version}${m.backup ? `, backup in ${m.backup}` : ''}\n`);
      for (const b of s.backups) io.stdout(`backup ${b.id}: ${b.files.length} file${b.files.length === 1 ? '' : 's'} (${b.files.map((f) => f.path).join(', ') || 'none'}), made before the upgrade from layout ${b.from} to ${b.to}\n`);
      if (s.backups.length === 0) io.stdout('no backups\n');
    });

  data
    .command('restore-backup')
    .description('data rollback: put the directory back as it was before the upgrade that made this backup (for the DocQA of that layout)')
    .argument('<id>', 'a backup id (see `docqa data status`)')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const r = await app().restoreBackup(id);
      if (o.json) return json(r);
      io.stdout(`restored backup ${r.backup.id}: layout ${r.layout}; put back ${r.restored.join(', ') || 'nothing (unchanged since)'}; removed ${r.removed.join(', ') || 'nothing'}\n`);
      io.stdout(`The next command of this DocQA upgrades the directory again (with a new backup); a DocQA of layout ${r.layout} reads it as it is.\n`);
    });
}
