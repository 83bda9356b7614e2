import type { Command } from 'commander';
import { DocQaError, UsageError } from '../common/errors';
import { findTool } from '../tools/registry';
import { toolsHelp } from '../tools/tool-help';
import { TOOL_NAMES, type ToolName } from '../tools/tool';
import { RELEASE_STATES } from '../shared/release-states';
import type { TraceMode } from '../shared/trace-model';
import type { TraceOutcome } from '../trace/trace-writer';
import type { CliIo } from './cli-io';
import type { CommandContext } from './command-context';
import type { AskEvent } from '../shared/ask-event';
import type { ConversationAskEvent } from '../app/conversations/ask-in-conversation';
import { cliWorkspace } from './chat-commands';
import { budgetLine, loadingLine } from './local-model-words';

function warnPartial(io: CliIo, trace: TraceOutcome): void {
  if (trace.partial) io.stderr(`docqa: warning: the trace of ${trace.run_id} is partial (${trace.records_dropped} records lost${trace.writer_error ? `: ${trace.writer_error}` : ''}); the answer is unaffected\n`);
}

export function registerAskCommands(program: Command, { io, json, app }: CommandContext): void {
  program
    .command('tool')
    .description(`run one retrieval tool and print its payload as JSON (${TOOL_NAMES.join(', ')})`)
    .argument('<name>', 'one of the tools below')
    .argument('[json]', 'the tool input as a JSON object (its fields below)', '{}')
    .option('--snapshot <id>', 'read this snapshot instead of the active one')
    .addHelpText('after', toolsHelp)
    .action(async (name: string, raw: string, o: { snapshot?: string }) => {
      if (!findTool(name)) throw new UsageError(`unknown tool ${name}; tools: ${TOOL_NAMES.join(', ')} (docqa tool --help lists their input fields)`);
      let input: unknown;
      try {
        input = JSON.parse(raw);
      } catch {
        throw new UsageError(`the tool input is not valid JSON: ${raw}`);
      }
      json(await app(['embedding-if-set']).runTool(name as ToolName, input, o.snapshot));
    });

  program
    .command('ask')
    .description('answer a question from the active snapshot, with checked citations and a trace')
    .argument('<question>')
    .option('--json', 'print JSON')
    .option('--lang <zh|en>', 'prompt language (default: Chinese when the question has Chinese characters)')
    .option('--prompt <id>', 'prompt bundle (default: the promoted one, else the release baseline for the language)')
    .option('--trace <mode>', 'metadata (default, or $DOCQA_TRACE) or full: also keep the exact prompts, model output, tool payloads and answer')
    .option('--conversation <id|new>', 'ask in a stored conversation (see `docqa chat list`), with its earlier questions and answers as context; "new" starts one')
    .option('--workspace <dir>', 'the workspace whose conversations --conversation uses (default: the current directory)')
    .action(async (question: string, o: { json?: boolean; lang?: string; prompt?: string; trace?: string; conversation?: string; workspace?: string }) => {
      if (o.lang !== undefined && o.lang !== 'zh' && o.lang !== 'en') throw new UsageError('--lang must be zh or en');
      if (o.trace !== undefined && o.trace !== 'metadata' && o.trace !== 'full') throw new UsageError('--trace must be metadata or full');
      if (o.workspace !== undefined && o.conversation === undefined) throw new UsageError('--workspace needs --conversation');
      const a = app(['run', 'chat', 'embedding-if-set']);
      const ac = new AbortController();
      const onSigint = () => ac.abort();
      // Ctrl-C cancels the run (CANCELLED); the host, not the core, listens for the signal.
      process.once('SIGINT', onSigint);
      const req = { question, lang: o.lang as 'zh' | 'en' | undefined, prompt: o.prompt, trace: o.trace as TraceMode | undefined };
      let run;
      let turn: { conversation_id: string; turn_id: string } | null = null;
      // Loading a local model can take a while: said on stderr as it starts (JSON output stays on stdout).
      const onEvent = (e: AskEvent | ConversationAskEvent) => {
        if (e.type === 'model_loading') io.stderr(`docqa: ${loadingLine(e)}\n`);
      };
      try {
        if (o.conversation === undefined) run = await a.ask(req, { signal: ac.signal, onEvent });
        else {
          const asked = await a.askInConversation({ ...req, workspace: cliWorkspace(o.workspace), conversation_id: o.conversation === 'new' ? null : o.conversation }, { signal: ac.signal, onEvent });
          run = asked.run;
          turn = { conversation_id: asked.conversation_id, turn_id: asked.turn.turn_id };
        }
      } finally {
        process.off('SIGINT', onSigint);
      }
      const { result } = run;
      if (o.json) {
        // The JSON says whether the trace is whole, so it waits for the (bounded) close.
        const trace = await run.trace;
        json({ run_id: run.run_id, snapshot_id: run.snapshot_id, ...(turn ?? {}), ...result, conversation: run.conversation, trace: { mode: run.trace_mode, partial: trace.partial, records_dropped: trace.records_dropped, writer_error: trace.writer_error } });
        warnPartial(io, trace);
      } else {
        // The answer first; the trace finishes while it is read.
        io.stdout(`${result.answer ?? '(no answer)'}\n`);
        if (result.citations.length) {
          io.stdout('\nSources\n');
          for (const c of result.citations) io.stdout(`  ${c.ref}  ${c.doc_title} — ${c.section_path} (${c.source_label})\n`);
        }
        io.stdout(`\n[${result.release.status}${result.release.reason ? ` ${result.release.reason}` : ''}] ${result.counts.tool_calls} tool calls, ${result.counts.model_calls} model calls, ${result.tokens.prompt + result.tokens.completion} chat tokens · trace ${run.run_id}\n`);
        if (result.ledger.context_window) io.stdout(`${budgetLine(result.ledger.context_window, result.ledger.largest_context, result.ledger.max_context_tokens)}\n`);
        if (turn) io.stdout(`conversation ${turn.conversation_id} (turn ${turn.turn_id}${run.conversation.turns ? `, ${run.conversation.turns} earlier turn${run.conversation.turns === 1 ? '' : 's'} as context${run.conversation.dropped ? `, ${run.conversation.dropped} older left out` : ''}` : ''})\n`);
        warnPartial(io, await run.trace);
      }
      if (RELEASE_STATES[result.release.status].exitCode !== 0) {
        throw new DocQaError('run_failed', `no answer (${result.release.reason ?? result.release.status})${result.release.detail ? `: ${result.release.detail}` : ''}`);
      }
    });
}
