import { z } from 'zod';
import type { AskEvent } from '../app/ask';
import type { DocQaApp } from '../app/docqa-app';
import type { HostChatModel } from '../app/host-model';
import type { QuestionScope } from '../shared/question-scope';
import { DocQaError, errorMessage } from '../common/errors';
import type { AgentResult, Citation, RemovedCitation } from '../harness/agent-result';
import { MARKER } from '../harness/citations';
import type { EarlierTurn } from '../harness/conversation-context';
import type { BlockLocation } from '../shared/block-location';
import type { UiLang } from '../shared/chat-protocol';
import { ANSWER_WORDS, type AnswerWords } from '../shared/answer-words';
import { ledgerItems } from '../shared/ledger-words';
import { RELEASE_STATES } from '../shared/release-states';
import { completeness, checkedSummary, headline, partialDisclosure } from '../shared/release-words';
import { knowledgeBaseOf } from './knowledge-base';

/** What @docqa writes into the chat response (a recording stream in tests, vscode.ChatResponseStream in VS Code). */
export interface ParticipantStream {
  progress(text: string): void;
  markdown(text: string, trustedCommands?: readonly string[]): void;
  /** A verified citation of lines in a text file: a reference the person clicks to open them. */
  lines(path: string, lineStart: number, lineEnd: number): void;
  button(command: string, title: string, args: unknown[]): void;
}

/** What @docqa keeps of each of its answers (the chat history hands it back with the next question). */
export const ParticipantMetadata = z.object({ run_id: z.string().nullable(), answer: z.string().nullable(), status: z.string() });
export type ParticipantMetadata = z.infer<typeof ParticipantMetadata>;

export interface ParticipantRequest {
  prompt: string;
  /** The slash command, without its slash. */
  command?: string;
  /** Files attached with `#` (their paths). */
  attached: readonly string[];
  /** Earlier @docqa turns of this chat, oldest first: the conversation section. */
  history: readonly EarlierTurn[];
  /**
   * The model the run uses (the chat's, or the setting's; null: DocQA's own endpoint), looked up when a
   * question runs: a lookup that fails is the answer's failure, in the same words as any other.
   */
  hostModel: () => Promise<HostChatModel | null>;
  /** The last run's trace (the previous turn's metadata), for /trace. */
  lastRunId: string | null;
  lang: UiLang;
}

export const OPEN_CITATION = 'docqa.openCitation';
export const OPEN_TRACE = 'docqa.openTrace';

/** The answer with every verified marker turned into numbered links that open the cited spot. */
export function answerMarkdown(answer: string, cites: readonly Citation[], snapshotId: string): string {
  const number = new Map(cites.map((c, i) => [c.ref, i + 1]));
  return answer.replace(MARKER, (_whole, list: string) =>
    list
      .split(/[,，;；、\s]+/)
      .filter((r) => number.has(r))
      .map((r) => ` [[${number.get(r)}]](command:${OPEN_CITATION}?${encodeURIComponent(JSON.stringify([{ ref: r, snapshot_id: snapshotId }]))} "${r}")`)
      .join(''),
  );
}

/** One line per removed citation, as the panel says it. */
export function removedWords(removed: readonly RemovedCitation[], S: AnswerWords): string {
  if (!removed.length) return '';
  return `${S.removedHeading}:\n${removed.map((r) => `- \`${r.ref}\`: ${S.removedReason[r.reason] ?? r.reason}`).join('\n')}\n\n`;
}

/** The ledger as one Markdown line, in the UI language. */
function ledgerWords(r: AgentResult, S: AnswerWords): string {
  return `**${S.ledger}**: ${ledgerItems(r.ledger, r.stop_reason, S).join(' · ')}${r.ledger.estimated ? ` (${S.ledgerEstimated})` : ''}\n`;
}

/**
 * @docqa's answer to one chat request, through the application layer's ask (the same run as the panel's):
 * each step as a progress line, the released answer as Markdown with its verified citations as links
 * and references, removed citations and a partial knowledge base said in words, then the release, the
 * completeness statement, the ledger and a button to the trace. `/trace` opens the last trace;
 * `/sources` limits the question to the documents attached with `#`.
 */
export async function answerInChat(app: DocQaApp, req: ParticipantRequest, out: ParticipantStream, signal: AbortSignal): Promise<ParticipantMetadata> {
  const S = ANSWER_WORDS[req.lang];
  const zh = req.lang === 'zh';
  if (req.command === 'trace') {
    if (!req.lastRunId) {
      out.markdown(zh ? '这个对话里还没有 @docqa 的回答：先提一个问题。' : 'No @docqa answer in this chat yet: ask a question first.');
      return { run_id: null, answer: null, status: 'NONE' };
    }
    out.button(OPEN_TRACE, S.openTrace, [req.lastRunId]);
    return { run_id: req.lastRunId, answer: null, status: 'TRACE' };
  }
  let scope: QuestionScope | undefined;
  if (req.command === 'sources') {
    const picked = await scopeOfFiles(app, req.attached, req.lang);
    if (typeof picked === 'string') {
      out.markdown(picked);
      return { run_id: null, answer: null, status: 'NONE' };
    }
    scope = picked;
  }
  let runId: string | null = null;
  const steps = new Map<string, string>();
  const onEvent = (e: AskEvent) => {
    if (e.type === 'run_started') {
      runId = e.run_id;
      if (e.scope) out.progress(S.ledgerScope(e.scope.documents.map((d) => d.title), e.scope.of));
    } else if (e.type === 'model_loading') out.progress(`${e.model}…`);
    else if (e.type === 'tool_requested') {
      const words = e.scope.words[req.lang];
      steps.set(e.tool_call_id, words);
      out.progress(`${words}…`);
    } else if (e.type === 'tool_result') out.progress(`${steps.get(e.tool_call_id) ?? e.tool}: ${e.outcome.words[req.lang]}`);
  };
  let result: AgentResult;
  let snapshotId: string;
  try {
    const hostModel = await req.hostModel();
    const run = await app.ask({ question: req.prompt, lang: req.lang, conversation: [...req.history], ...(scope ? { scope } : {}) }, { signal, onEvent, ...(hostModel ? { hostModel } : {}) });
    result = run.result;
    snapshotId = run.snapshot_id;
    runId = run.run_id;
  } catch (err) {
    const code = err instanceof DocQaError ? err.code : 'internal';
    out.markdown(`**${RELEASE_STATES.FAILED.label[req.lang]}** · ${errorMessage(err)}${code === 'internal' ? '' : ` (${code})`}`);
    return { run_id: runId, answer: null, status: 'FAILED' };
  }
  await writeResult(app, result, snapshotId, runId, req.lang, out);
  return { run_id: runId, answer: result.answer, status: result.release.status };
}

async function writeResult(app: DocQaApp, r: AgentResult, snapshotId: string, runId: string | null, lang: UiLang, out: ParticipantStream): Promise<void> {
  const S = ANSWER_WORDS[lang];
  if (r.answer) out.markdown(`${answerMarkdown(r.answer, r.citations, snapshotId)}\n\n`, [OPEN_CITATION]);
  for (const c of r.citations) await citeReference(app, c, snapshotId, out);
  const words: string[] = [];
  words.push(`**${headline(r, S)}**`);
  const { evidence } = RELEASE_STATES[r.release.status];
  if (evidence === 'checked') {
    const checked = checkedSummary(r.progress, S);
    if (checked) words.push(`${S.checked}: ${checked}`);
  }
  if (evidence === 'covered') {
    const covered = completeness(r.progress, S);
    if (covered.length) words.push(`${S.completeness}: ${covered.join('; ')}`);
  }
  const partial = partialDisclosure(knowledgeBaseOf(await app.activeSnapshot().catch(() => null), false), snapshotId, S);
  if (partial) words.push(partial);
  out.markdown(`\n\n${removedWords(r.removed_citations, S)}${words.join('\n\n')}\n\n${ledgerWords(r, S)}`);
  if (runId) out.button(OPEN_TRACE, S.openTrace, [runId]);
}

/** A verified citation as something to click: the lines of a text file as a reference, any other spot (a PDF page…) as a button. */
async function citeReference(app: DocQaApp, c: Citation, snapshotId: string, out: ParticipantStream): Promise<void> {
  const b = await app.block({ doc_id: c.doc_id, block_id: c.block_id, snapshot_id: snapshotId });
  if (!b.found || !b.file_exists) return;
  if (b.location.kind === 'lines') out.lines(b.path, b.location.line_start, b.location.line_end);
  else out.button(OPEN_CITATION, `${c.doc_title} · ${spotWords(b.location)}`, [{ ref: c.ref, snapshot_id: snapshotId }]);
}

function spotWords(l: BlockLocation): string {
  switch (l.kind) {
    case 'page':
      return `p. ${l.page}`;
    case 'lines':
      return `L${l.line_start}–${l.line_end}`;
    default:
      return l.kind;
  }
}

/** /sources: the attached files, as the active snapshot's documents; words when none of them is indexed. */
async function scopeOfFiles(app: DocQaApp, files: readonly string[], lang: UiLang): Promise<QuestionScope | string> {
  const zh = lang === 'zh';
  if (!files.length) return zh ? '用 # 附上要提问的文档，例如 `@docqa /sources #notes.md 什么是渗透？`' : 'Attach the documents to ask about with #, e.g. `@docqa /sources #notes.md What is osmosis?`';
  const manifest = await app.activeSnapshot();
  if (!manifest) return zh ? '还没有可用的索引：先添加来源并建立索引。' : 'No index is active yet: add sources and build the index first.';
  const ids = await app.documentsAt(files);
  if (!ids.length) return zh ? `附上的文件都不在索引中：${files.join('、')}。把它们加入 DocQA 的来源并重建索引。` : `None of the attached files is in the index: ${files.join(', ')}. Add them to DocQA's sources and rebuild the index.`;
  return { sources: [], doc_ids: ids };
}
