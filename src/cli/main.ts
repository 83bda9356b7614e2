import { Command, CommanderError } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { loadRegistry } from '../index/sources/doc-registry';
import { withStoreLock } from '../common/data-dir';
import { DocQaError, UsageError, errorMessage } from '../common/errors';
import { ingestFile } from '../index/ingest/ingest-file';
import { ingestSources } from '../index/ingest/ingest-sources';
import { addSources, loadSources, removeSource } from '../index/sources/sources';
import { buildSnapshot } from '../index/store/build-snapshot';
import { activateSnapshot, deleteSnapshot, listSnapshots, readActiveId } from '../index/store/snapshot-store';
import { embeddingFromEnv, chatFromEnv, ingestOptionsFromEnv, redactorFromEnv, resolveStore, retentionFromEnv, runSettingsFromEnv } from './cli-env';
import { isLoopback } from '../common/provider-failure';
import { ChatClient } from '../harness/model-client';
import { activeBundle } from '../harness/prompt-store';
import { runTraced } from '../app/traced-run';
import type { TraceMode } from '../trace/trace-model';
import type { TraceOutcome } from '../trace/trace-writer';
import { type CommandContext, questionLanguage } from './command-context';
import { registerEvalCommands } from './eval-commands';
import { registerPromptCommands } from './prompt-commands';
import { registerTraceCommands } from './trace-commands';
import { SnapshotLru } from '../index/store/snapshot-lru';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { openSnapshotHandle } from '../tools/snapshot-handle';
import { findTool, runTool } from '../tools/registry';
import { queryEmbedderFor } from '../tools/query-embedder';
import { TOOL_NAMES, errorPayload, type ToolName } from '../tools/tool';
import { formatDocument, formatFailure } from './format';
import pkg from '../../package.json';

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: long commands may show progress there (never in pipes or tests). */
  interactive?: boolean;
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
      // The registry of doc_ids is written under the build lock, as builds write it.
      const dir = store();
      const run = await withStoreLock(dir, () => ingestSources(dir, ingestOptionsFromEnv(io.env)), 'build');
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
    .command('index')
    .description('build a snapshot from the sources and activate it when usable')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const emb = embeddingFromEnv(io.env);
      let shown = '';
      const onProgress = io.interactive
        ? (p: { stage: string; done: number; total: number }) => {
            const line = `${p.stage} ${p.done}/${p.total}`;
            if (line !== shown) io.stderr(`\r\x1b[K${(shown = line)}`);
          }
        : undefined;
      const { manifest: m, activated } = await buildSnapshot(store(), { ingest: ingestOptionsFromEnv(io.env), embedding: emb.config, embeddingApiKey: emb.apiKey, retention: retentionFromEnv(io.env), onProgress });
      if (shown) io.stderr('\r\x1b[K');
      const summary = {
        snapshot_id: m.id,
        state: m.state,
        activated,
        parent: m.parent,
        documents: m.stats.documents,
        blocks: m.stats.blocks,
        failed_documents: m.failed_documents,
        embedding: m.embedding,
        embedding_tokens: m.stats.embedding_tokens,
        embedded_blocks: m.stats.embedded_blocks,
        cached_embeddings: m.stats.cached_embeddings,
        reused_documents: m.stats.reused_documents,
        segments: m.segments.length,
        durations_ms: m.stats.durations_ms,
        error: m.error,
      };
      if (o.json) json(io, summary);
      else {
        io.stdout(`snapshot ${m.id}: ${m.state}${activated ? ' (active)' : ' (not activated)'}\n`);
        io.stdout(`  ${m.stats.documents} documents (${m.stats.reused_documents} unchanged), ${m.stats.blocks} blocks in ${m.segments.length} segment${m.segments.length === 1 ? '' : 's'}, ${m.failed_documents.length} failed\n`);
        io.stdout(m.embedding.provider === 'none' ? '  keyword-only: no embeddings (DOCQA_EMBEDDING_PROVIDER=none)\n' : `  embeddings: ${m.embedding.model} (${m.embedding.dimensions} dims), ${m.stats.embedded_blocks} embedded, ${m.stats.cached_embeddings} from cache, ${m.stats.embedding_tokens} tokens\n`);
        for (const f of m.failed_documents) io.stdout(`  FAILED ${f.path}: ${f.stage}/${f.code} — ${f.message}\n`);
        const d = m.stats.durations_ms;
        io.stdout(`  ingest ${d.ingest} ms, embed ${d.embed} ms, index ${d.index} ms, write ${d.write} ms\n`);
      }
      if (!activated) {
        const why = m.state === 'failed' ? `failed: ${m.error ?? 'not usable'}` : `is ${m.state} but the embedding endpoint failed for ${m.failed_documents.filter((f) => f.stage === 'embed').length} document(s) (activate it with \`docqa snapshots activate ${m.id}\` to use it anyway)`;
        throw new DocQaError('build_failed', `snapshot ${m.id} ${why}; the previous snapshot stays active`);
      }
    });

  const snapshots = program
    .command('snapshots')
    .description('list snapshots (newest first); activate or delete one')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const dir = store();
      const [list, active] = await Promise.all([listSnapshots(dir), readActiveId(dir)]);
      const rows = list.map((m) => ({ id: m.id, state: m.state, active: m.id === active, created_at: m.created_at, parent: m.parent, documents: m.stats.documents, blocks: m.stats.blocks, segments: m.segments.length, failed_documents: m.stats.failed_documents, embedding: m.embedding }));
      if (o.json) return json(io, rows);
      if (rows.length === 0) return io.stdout('no snapshots; build one with `docqa index`\n');
      for (const r of rows) io.stdout(`${r.active ? '*' : ' '} ${r.id}  ${r.state.padEnd(13)} ${r.created_at}  ${r.documents} docs, ${r.blocks} blocks, ${r.failed_documents} failed  ${r.embedding.provider === 'none' ? 'keyword-only' : r.embedding.model}\n`);
    });
  snapshots
    .command('activate')
    .description('make a snapshot the active one (rollback)')
    .argument('<id>')
    .action(async (id: string) => {
      const m = await activateSnapshot(store(), id);
      io.stdout(`active: ${m.id} (${m.state})\n`);
    });
  snapshots
    .command('delete')
    .description('delete a snapshot that is not active')
    .argument('<id>')
    .action(async (id: string) => {
      await deleteSnapshot(store(), id);
      io.stdout(`deleted: ${id}\n`);
    });

  program
    .command('tool')
    .description(`run one retrieval tool and print its payload as JSON (${TOOL_NAMES.join(', ')})`)
    .argument('<name>')
    .argument('[json]', 'the tool input as a JSON object', '{}')
    .option('--snapshot <id>', 'read this snapshot instead of the active one')
    .action(async (name: string, raw: string, o: { snapshot?: string }) => {
      if (!findTool(name)) throw new UsageError(`unknown tool ${name}; tools: ${TOOL_NAMES.join(', ')}`);
      let input: unknown;
      try {
        input = JSON.parse(raw);
      } catch {
        throw new UsageError(`the tool input is not valid JSON: ${raw}`);
      }
      const dir = store();
      let handle;
      try {
        handle = await openSnapshotHandle(dir, new SnapshotLru(dir, 1), o.snapshot);
      } catch (err) {
        return json(io, errorPayload('collection_unavailable', `snapshot ${o.snapshot ?? '(active)'} cannot be read: ${errorMessage(err)}`));
      }
      if (!handle) return json(io, errorPayload('collection_unavailable', 'no snapshot is active; build one with `docqa index`'));
      try {
        const { snapshot } = handle;
        json(io, await runTool(name as ToolName, input, { snapshot, embedQuery: queryEmbedderFromEnv(snapshot, io.env) }));
      } finally {
        await handle.release();
      }
    });

  program
    .command('ask')
    .description('answer a question from the active snapshot, with checked citations and a trace')
    .argument('<question>')
    .option('--json', 'print JSON')
    .option('--lang <zh|en>', 'prompt language (default: Chinese when the question has Chinese characters)')
    .option('--prompt <id>', 'prompt bundle (default: the promoted one, else the release baseline for the language)')
    .option('--trace <mode>', 'metadata (default, or $DOCQA_TRACE) or full: also keep the exact prompts, model output, tool payloads and answer')
    .action(async (question: string, o: { json?: boolean; lang?: string; prompt?: string; trace?: string }) => {
      if (o.lang !== undefined && o.lang !== 'zh' && o.lang !== 'en') throw new UsageError('--lang must be zh or en');
      if (o.trace !== undefined && o.trace !== 'metadata' && o.trace !== 'full') throw new UsageError('--trace must be metadata or full');
      const settings = runSettingsFromEnv(io.env);
      checkQuestion(question, settings.maxQuestionChars);
      const chat = chatFromEnv(io.env);
      // Nothing is sent without a key (a server on this machine may need none).
      if (!chat.apiKey && !isLoopback(chat.config.base_url)) throw new UsageError(`no chat API key: set DOCQA_CHAT_API_KEY to your key for ${chat.config.base_url} (model ${chat.config.model}); nothing was sent`);
      const dir = store();
      const lang = (o.lang as 'zh' | 'en' | undefined) ?? questionLanguage(question);
      const bundle = await activeBundle(dir, lang, o.prompt);
      const handle = await openSnapshotHandle(dir, new SnapshotLru(dir, 1));
      if (!handle) throw new DocQaError('collection_unavailable', 'no snapshot is active; build one with `docqa index`');
      try {
        const { snapshot } = handle;
        checkQueryEmbedding(snapshot, io.env);
        const ac = new AbortController();
        const onSigint = () => ac.abort();
        process.once('SIGINT', onSigint);
        let run;
        try {
          run = await runTraced({
            dir,
            question,
            snapshot,
            embedQuery: queryEmbedderFromEnv(snapshot, io.env),
            model: new ChatClient(chat.config, chat.apiKey),
            chat: chat.config,
            bundle,
            budgets: settings.budgets,
            thresholds: settings.thresholds,
            lang,
            appVersion: pkg.version,
            mode: (o.trace as TraceMode | undefined) ?? settings.traceMode,
            keepTraces: settings.keepTraces,
            redactor: redactorFromEnv(io.env),
            signal: ac.signal,
          });
        } finally {
          process.off('SIGINT', onSigint);
        }
        const { result } = run;
        const mode = (o.trace as TraceMode | undefined) ?? settings.traceMode;
        if (o.json) {
          // The JSON says whether the trace is whole, so it waits for the (bounded) close.
          const trace = await run.trace;
          json(io, { run_id: run.run_id, snapshot_id: handle.id, ...result, trace: { mode, partial: trace.partial, records_dropped: trace.records_dropped, writer_error: trace.writer_error } });
          warnPartial(io, trace);
        } else {
          // The answer first; the trace finishes while it is read.
          io.stdout(`${result.answer ?? '(no answer)'}\n`);
          if (result.citations.length) {
            io.stdout('\nSources\n');
            for (const c of result.citations) io.stdout(`  ${c.ref}  ${c.doc_title} — ${c.section_path} (${c.source_label})\n`);
          }
          io.stdout(`\n[${result.release.status}${result.release.reason ? ` ${result.release.reason}` : ''}] ${result.counts.tool_calls} tool calls, ${result.counts.model_calls} model calls, ${result.tokens.prompt + result.tokens.completion} chat tokens · trace ${run.run_id}\n`);
          warnPartial(io, await run.trace);
        }
        if (result.release.status === 'FAILED' || result.release.status === 'CANCELLED') {
          throw new DocQaError('run_failed', `no answer (${result.release.reason ?? result.release.status})${result.release.detail ? `: ${result.release.detail}` : ''}`);
        }
      } finally {
        await handle.release();
      }
    });

  const ctx: CommandContext = { io, store, json: (v) => json(io, v), queryEmbedder: (s) => queryEmbedderFromEnv(s, io.env) };
  registerTraceCommands(program, ctx);
  registerPromptCommands(program, ctx);
  registerEvalCommands(program, ctx);

  program
    .command('inspect')
    .description('show what a file becomes: document, section tree and blocks with locations, or its failure')
    .argument('<path>')
    .option('--json', 'print JSON')
    .option('--no-blocks', 'leave the block list out of the text output')
    .action(async (p: string, o: { json?: boolean; blocks: boolean }) => {
      const abs = path.resolve(p);
      // A file's own failures are what inspect shows; a path that is no file is the caller's mistake.
      const st = await fs.promises.stat(abs).catch(() => null);
      if (!st) throw new DocQaError('source_not_found', `no such file: ${abs}`);
      if (st.isDirectory()) throw new DocQaError('not_a_file', `${abs} is a folder: inspect shows one file (add a folder with \`docqa sources add\`)`);
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

function warnPartial(io: CliIo, trace: TraceOutcome): void {
  if (trace.partial) io.stderr(`docqa: warning: the trace of ${trace.run_id} is partial (${trace.records_dropped} records lost${trace.writer_error ? `: ${trace.writer_error}` : ''}); the answer is unaffected\n`);
}

/** An empty question, or one past the size limit, is a usage error before anything is sent. */
function checkQuestion(question: string, max: number): void {
  if (!question.trim()) throw new UsageError('the question is empty: ask something, e.g. docqa ask "What is osmosis?"');
  const chars = [...question].length;
  if (chars > max) throw new UsageError(`the question is ${chars} characters long, more than ${max} (DOCQA_MAX_QUESTION_CHARS): shorten it, or raise the limit`);
}

/**
 * A snapshot built with embeddings is searched with the same model: the endpoint must be configured and,
 * unless it is on this machine, have a key — checked before any request, so a missing key never shows
 * up later as a failed search.
 */
function checkQueryEmbedding(snapshot: LoadedSnapshot, env: NodeJS.ProcessEnv): void {
  const e = snapshot.manifest.embedding;
  if (e.provider === 'none') return;
  const how = `this snapshot was built with the embedding model ${e.model} at ${e.family}, and its searches embed the question with it`;
  let config;
  try {
    config = embeddingFromEnv(env);
  } catch {
    throw new UsageError(`${how}: set DOCQA_EMBEDDING_BASE_URL, DOCQA_EMBEDDING_MODEL and DOCQA_EMBEDDING_API_KEY, or rebuild keyword-only with DOCQA_EMBEDDING_PROVIDER=none docqa index`);
  }
  if (config.config.provider === 'none') throw new UsageError(`${how}, but DOCQA_EMBEDDING_PROVIDER=none: configure that endpoint, or rebuild keyword-only with \`docqa index\``);
  if (!config.apiKey && !isLoopback(config.config.base_url)) throw new UsageError(`no embedding API key: ${how}; set DOCQA_EMBEDDING_API_KEY; nothing was sent`);
}

/**
 * The query embedder for a snapshot from the DOCQA_EMBEDDING_* settings. Without a usable endpoint there
 * is none: search_blocks then reports upstream_unavailable and the other tools still work.
 */
function queryEmbedderFromEnv(snapshot: LoadedSnapshot, env: NodeJS.ProcessEnv) {
  if (snapshot.manifest.embedding.provider === 'none') return undefined;
  try {
    const e = embeddingFromEnv(env);
    return queryEmbedderFor(snapshot.manifest.embedding, e.config.provider === 'none' ? null : e.config, e.apiKey);
  } catch {
    return queryEmbedderFor(snapshot.manifest.embedding, null, '');
  }
}

/** Runs the CLI; returns the exit status (0 done, 2 usage error, 1 anything else). Never exits itself. */
export async function runCli(argv: readonly string[], rawIo: CliIo): Promise<number> {
  // Every byte the CLI prints passes the redactor: an upstream error that echoes a key never reaches the terminal.
  const redactor = redactorFromEnv(rawIo.env);
  const io: CliIo = { ...rawIo, stdout: (s) => rawIo.stdout(redactor.redact(s)), stderr: (s) => rawIo.stderr(redactor.redact(s)) };
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
  // A reader that stops early (`docqa inspect FILE | head`) closes the pipe: the rest of the output has
  // nowhere to go, which is no failure of the command; it finishes (an index still gets built) quietly.
  let stdoutGone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    stdoutGone = true;
    if (err.code === 'EPIPE') return;
    process.stderr.write(`docqa: cannot write output: ${err.message}\n`);
    process.exitCode = 1;
  });
  void runCli(process.argv.slice(2), {
    stdout: (s) => {
      if (!stdoutGone) process.stdout.write(s);
    },
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    interactive: process.stderr.isTTY === true,
  }).then((code) => {
    process.exitCode = process.exitCode || code;
  });
}

