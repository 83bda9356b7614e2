import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import type { EarlierTurn } from '../harness/conversation-context';
import type { UiLang } from '../shared/chat-protocol';
import type { VsCodeModels } from './lm-models';
import { ParticipantMetadata, type ParticipantStream, answerInChat } from './participant-handler';

/** The chat participant's id (package.json's contributes.chatParticipants). */
export const PARTICIPANT_ID = 'docqa.docqa';

const uiLang = (): UiLang => (vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en');

/** vscode.ChatResponseStream as the handler's stream: line citations as Locations, command links trusted only for the commands named. */
export function streamOf(stream: vscode.ChatResponseStream): ParticipantStream {
  return {
    progress: (text) => stream.progress(text),
    markdown: (text, commands) => {
      const md = new vscode.MarkdownString(text);
      if (commands?.length) md.isTrusted = { enabledCommands: [...commands] };
      stream.markdown(md);
    },
    lines: (path, start, end) => stream.reference(new vscode.Location(vscode.Uri.file(path), new vscode.Range(start - 1, 0, end - 1, Number.MAX_SAFE_INTEGER))),
    button: (command, title, args) => stream.button({ command, title, arguments: args }),
  };
}

/** The earlier @docqa turns of this chat: each question with the answer it released (kept in the result's metadata). */
export function historyOf(context: vscode.ChatContext): { turns: EarlierTurn[]; lastRunId: string | null } {
  const turns: EarlierTurn[] = [];
  let lastRunId: string | null = null;
  let question: string | null = null;
  for (const h of context.history) {
    if (h instanceof vscode.ChatRequestTurn) question = h.command === 'trace' ? null : h.prompt;
    else if (h instanceof vscode.ChatResponseTurn) {
      const m = ParticipantMetadata.safeParse(h.result.metadata);
      if (m.success && m.data.run_id) lastRunId = m.data.run_id;
      if (question !== null && m.success && m.data.answer) turns.push({ question, answer: m.data.answer });
      question = null;
    }
  }
  return { turns, lastRunId };
}

/** Files attached with `#`: their paths. */
function attachedFiles(request: vscode.ChatRequest): string[] {
  const out: string[] = [];
  for (const r of request.references) {
    const v = r.value;
    if (v instanceof vscode.Uri && v.scheme === 'file') out.push(v.fsPath);
    else if (v instanceof vscode.Location && v.uri.scheme === 'file') out.push(v.uri.fsPath);
  }
  return [...new Set(out)];
}

/** The cancellation token as the AbortSignal the application layer takes: a stop ends the run as CANCELLED. */
function signalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  const sub = token.onCancellationRequested(() => ac.abort());
  return { signal: ac.signal, dispose: () => sub.dispose() };
}

/** @docqa's request handler over the application layer. */
export function participantHandler(app: DocQaApp, models: VsCodeModels): vscode.ChatRequestHandler {
  return async (request, context, stream, token) => {
    const { turns, lastRunId } = historyOf(context);
    const cancel = signalOf(token);
    try {
      const metadata = await answerInChat(app, { prompt: request.prompt, command: request.command, attached: attachedFiles(request), history: turns, hostModel: () => models.forParticipant(request.model), lastRunId, lang: uiLang() }, streamOf(stream), cancel.signal);
      return { metadata };
    } finally {
      cancel.dispose();
    }
  };
}
