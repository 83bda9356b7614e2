import type { Command } from 'commander';
import type { CommandContext } from './command-context';
import { formatDocument, formatFailure, shown } from './format';

const collect = (v: string, prev: string[]) => [...prev, v];

export function registerSourceCommands(program: Command, { io, json, app }: CommandContext): void {
  const sources = program.command('sources').description('manage the files and folders DocQA reads');
  sources
    .command('add')
    .description('add files or folders (recursive; .gitignore, hidden entries and node_modules skipped)')
    .argument('<paths...>')
    .option('--include <glob>', 'only files matching this glob (relative to the folder); repeatable', collect, [])
    .option('--exclude <glob>', 'skip files or folders matching this glob; repeatable', collect, [])
    .option('--label <name>', 'source name shown with its documents (default: the folder or file name, made unique)')
    .option('--alias <name>', 'another name the source answers to; repeatable', collect, [])
    .option('--hidden', 'also read hidden files and folders')
    .option('--json', 'print JSON')
    .action(async (paths: string[], o: { include: string[]; exclude: string[]; label?: string; alias: string[]; hidden?: boolean; json?: boolean }) => {
      const out = await app().addSources(paths, { include: o.include, exclude: o.exclude, label: o.label, aliases: o.alias, includeHidden: o.hidden });
      if (o.json) return json(out);
      for (const r of out) io.stdout(`${r.status === 'added' ? 'added' : 'already added'}: ${r.source.kind} ${r.source.path} (label ${r.source.label}, id ${r.source.id})\n`);
    });
  sources
    .command('list')
    .description('list sources')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const list = await app().listSources();
      if (o.json) return json(list);
      if (list.length === 0) return io.stdout('no sources; add some with `docqa sources add PATH`\n');
      for (const s of list) {
        const globs = [...s.include.map((g) => `+${g}`), ...s.exclude.map((g) => `-${g}`)].join(' ');
        io.stdout(`${s.id}  ${s.kind.padEnd(6)} ${s.label}  ${s.path}${globs ? `  ${globs}` : ''}\n`);
      }
    });
  sources
    .command('remove')
    .description('remove a source (by path, id or label)')
    .argument('<path>')
    .action(async (ref: string) => {
      const removed = await app().removeSource(ref);
      io.stdout(`removed: ${removed.kind} ${removed.path}\n`);
    });
  sources
    .command('scan')
    .description('read every source file, assign stable doc_ids and report documents and failures')
    .option('--json', 'print JSON (documents without their blocks)')
    .action(async (o: { json?: boolean }) => {
      const run = await app(['ingest']).scanSources();
      const docs = run.documents.map((d) => ({
        doc_id: d.doc_id,
        path: d.path,
        title: d.title,
        source_label: d.source_label,
        lang: d.lang,
        format: d.format,
        content_hash: d.content_hash,
        sections: d.sections.length,
        blocks: d.blocks.length,
        tokens: d.blocks.reduce((n, b) => n + b.token_count, 0),
      }));
      if (o.json) return json({ documents: docs, failed_documents: run.failed_documents });
      for (const d of docs) io.stdout(`${d.doc_id}  ${d.lang.padEnd(5)} ${String(d.blocks).padStart(5)} blocks  ${shown(d.title)}  (${shown(d.path)})\n`);
      // A document indexed without some of its pages (scans with OCR off, damaged pages) is PARTIAL: never shown as complete.
      for (const f of run.failed_documents) io.stdout(`${f.pages ? 'PARTIAL' : 'FAILED '} ${shown(f.path)}: ${f.stage}/${f.code} — ${f.message}\n`);
      const partial = run.failed_documents.filter((f) => f.pages).length;
      io.stdout(`${docs.length} documents${partial ? ` (${partial} partial)` : ''}, ${run.failed_documents.length - partial} failed\n`);
    });

  program
    .command('inspect')
    .description('show what a file becomes: document, section tree and blocks with locations, or its failure')
    .argument('<path>')
    .option('--json', 'print JSON')
    .option('--no-blocks', 'leave the block list out of the text output')
    .action(async (p: string, o: { json?: boolean; blocks: boolean }) => {
      const { outcome, registered } = await app(['ingest']).inspect(p);
      if (o.json) return json(outcome);
      io.stdout(`${outcome.ok ? formatDocument(outcome.document, registered, o.blocks) : formatFailure(outcome.failure)}\n`);
    });
}
