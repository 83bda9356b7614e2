import { Command, CommanderError } from 'commander';
import path from 'node:path';
import { loadRegistry } from '../index/doc-registry';
import { DocQaError, UsageError, errorMessage } from '../index/errors';
import { ingestFile } from '../index/ingest-file';
import { ingestSources } from '../index/ingest-sources';
import { addSources, loadSources, removeSource } from '../index/sources';
import { ingestOptionsFromEnv, resolveStore } from './cli-env';
import { formatDocument, formatFailure } from './format';
import pkg from '../../package.json';

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

const collect = (v: string, prev: string[]) => [...prev, v];

function json(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

function buildProgram(io: CliIo): Command {
  const program = new Command('docqa')
    .description('Ask questions about your own documents, with citations you can verify.')
    .version(pkg.version)
    .option('--store <dir>', 'data directory (default $DOCQA_HOME, else ~/.docqa)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);
  const store = () => resolveStore(program.opts<{ store?: string }>().store, io.env);

  const sources = program.command('sources').description('manage the files and folders DocQA reads');
  sources
    .command('add')
    .description('add files or folders (recursive; .gitignore, hidden entries and node_modules skipped)')
    .argument('<paths...>')
    .option('--include <glob>', 'only files matching this glob (relative to the folder); repeatable', collect, [])
    .option('--exclude <glob>', 'skip files or folders matching this glob; repeatable', collect, [])
    .option('--label <name>', 'source name shown with its documents (default: the folder or file name)')
    .option('--alias <name>', 'another name the source answers to; repeatable', collect, [])
    .option('--hidden', 'also read hidden files and folders')
    .option('--json', 'print JSON')
    .action(async (paths: string[], o: { include: string[]; exclude: string[]; label?: string; alias: string[]; hidden?: boolean; json?: boolean }) => {
      const out = await addSources(store(), paths, { include: o.include, exclude: o.exclude, label: o.label, aliases: o.alias, includeHidden: o.hidden });
      if (o.json) return json(io, out);
      for (const r of out) io.stdout(`${r.status === 'added' ? 'added' : 'already added'}: ${r.source.kind} ${r.source.path} (label ${r.source.label}, id ${r.source.id})\n`);
    });
  sources
    .command('list')
    .description('list sources')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const list = await loadSources(store());
      if (o.json) return json(io, list);
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
      const removed = await removeSource(store(), ref);
      io.stdout(`removed: ${removed.kind} ${removed.path}\n`);
    });
  sources
    .command('scan')
    .description('read every source file, assign stable doc_ids and report documents and failures')
    .option('--json', 'print JSON (documents without their blocks)')
    .action(async (o: { json?: boolean }) => {
      const run = await ingestSources(store(), ingestOptionsFromEnv(io.env));
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
      if (o.json) return json(io, { documents: docs, failed_documents: run.failed_documents });
      for (const d of docs) io.stdout(`${d.doc_id}  ${d.lang.padEnd(5)} ${String(d.blocks).padStart(5)} blocks  ${d.title}  (${d.path})\n`);
      for (const f of run.failed_documents) io.stdout(`FAILED  ${f.path}: ${f.stage}/${f.code} — ${f.message}\n`);
      io.stdout(`${docs.length} documents, ${run.failed_documents.length} failed\n`);
    });

  program
    .command('inspect')
    .description('show what a file becomes: document, section tree and blocks with locations, or its failure')
    .argument('<path>')
    .option('--json', 'print JSON')
    .option('--no-blocks', 'leave the block list out of the text output')
    .action(async (p: string, o: { json?: boolean; blocks: boolean }) => {
      const abs = path.resolve(p);
      const dir = store();
      const [registry, srcs] = await Promise.all([loadRegistry(dir), loadSources(dir)]);
      const registered = registry.find((e) => e.path === abs);
      const source = srcs.find((s) => abs === s.path || abs.startsWith(s.path + path.sep));
      const outcome = await ingestFile(
        abs,
        { doc_id: registered?.doc_id ?? '(unregistered)', source_label: source?.label ?? path.basename(path.dirname(abs)), aliases: source?.aliases ?? [] },
        ingestOptionsFromEnv(io.env),
      );
      if (o.json) return json(io, outcome);
      io.stdout(`${outcome.ok ? formatDocument(outcome.document, registered !== undefined, o.blocks) : formatFailure(outcome.failure)}\n`);
    });
  return program;
}

/** Runs the CLI; returns the exit status (0 done, 2 usage error, 1 anything else). Never exits itself. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return 0;
      return 2; // commander already printed the one-line reason
    }
    if (err instanceof UsageError) {
      io.stderr(`docqa: ${err.message}\n`);
      return 2;
    }
    io.stderr(`docqa: ${err instanceof DocQaError ? err.message : `unexpected error: ${errorMessage(err)}`}\n`);
    return 1;
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
  }).then((code) => {
    process.exitCode = code;
  });
}

