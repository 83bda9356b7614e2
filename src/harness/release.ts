import path from 'node:path';
import { describeFailure } from '../common/provider-failure';
import { pageRanges } from '../index/parse/pdf-pages';
import { RELEASE_STATES } from '../shared/release-states';
import { type AgentResult, type Release, type ReleaseStatus, type StopReason, stopWords } from '../shared/run-result';
import { checkCitations } from './citations';
import type { Loop } from './loop-context';
import type { ChatError } from './model-client';
import { checkedLines, renderFallback } from './progress-snapshot';

/**
 * The partial snapshot's missing documents, named in the answer unless it names them already; a document
 * indexed without some pages (`pages`) is named with those pages.
 */
function disclosePartial(loop: Loop, answer: string): string {
  const m = loop.o.snapshot.manifest;
  if (m.state !== 'ready_partial') return answer;
  const unnamed = m.failed_documents.filter((f) => !answer.includes(path.basename(f.path)));
  const missing = unnamed.filter((f) => !f.pages).map((f) => path.basename(f.path));
  // As ranges: a 40-page scan read without OCR is "3–40", not 38 numbers.
  const partial = unnamed.filter((f) => f.pages).map((f) => ({ name: path.basename(f.path), pages: pageRanges(f.pages!).replaceAll(', ', loop.answerLang === 'zh' ? '、' : ', ') }));
  if (missing.length === 0 && partial.length === 0) return answer;
  if (loop.answerLang === 'zh') {
    const said = [...(missing.length ? [`以下文档未能入库，本回答未覆盖：${missing.join('、')}`] : []), ...partial.map((p) => `${p.name} 的第 ${p.pages} 页无法读取，未被覆盖`)];
    return `${answer}\n\n（注意：${said.join('；')}）`;
  }
  const said = [...(missing.length ? [`these documents could not be indexed and are not covered: ${missing.join(', ')}`] : []), ...partial.map((p) => `page(s) ${p.pages} of ${p.name} could not be read and are not covered`)];
  return `${answer}\n\n(Note: ${said.join('; ')})`;
}

const spanStatus = (s: ReleaseStatus) => RELEASE_STATES[s].span;

/**
 * The run's one exit: the answer's citations checked against what this run showed the model, a partial
 * collection disclosed, the release span and the events (citations, then release), the result.
 */
export function releaseRun(loop: Loop, release: Release, answer: string | null, stopReason: StopReason | null): AgentResult {
  const { state, tracer, root } = loop;
  let text = answer;
  const check = text === null ? { answer: null, cited: [], removed: [] } : checkCitations(text, { citable: new Set(state.citable.keys()), located: state.located, refused: state.refused });
  if (check.answer !== null) text = disclosePartial(loop, check.answer);
  const citations = check.cited.map((r) => state.citable.get(r)!);
  const stop = stopReason ?? loop.tracker.stopReason;
  const span = tracer.start('release', 'release', root, { status: release.status, reason: release.reason, detail: release.detail, stop_reason: stop, citations: citations.map((c) => c.ref), removed_citations: check.removed.map((r) => `${r.ref} (${r.reason})`) });
  if (text !== null) span.artifact('answer', text);
  span.end(spanStatus(release.status));
  const result: AgentResult = {
    release,
    stop_reason: stop,
    answer: text,
    citations,
    removed_citations: check.removed,
    counts: { ...state.counts },
    tokens: { ...state.tokens, estimated: { ...state.tokens.estimated } },
    ledger: state.ledger(loop.o.run.budgets, loop.o.contextWindow),
    progress: state.progress(stop),
  };
  root.end(spanStatus(release.status), { status: release.status, reason: release.reason, stop_reason: stop, ...state.counts, prompt_tokens: state.tokens.prompt, completion_tokens: state.tokens.completion, embedding_tokens: state.tokens.embedding });
  loop.emit({ type: 'citations', verified: citations, removed: check.removed });
  loop.emit({ type: 'release', result });
  return result;
}

export const ok = (): Release => ({ status: 'SUCCESS', reason: null, detail: null, failure: null });

/** The technical failure in one sentence (the provider's failure described, else the tool's words). */
function technicalDetail(loop: Loop): string {
  const t = loop.state.technical!;
  const names = t.failure ? loop.o.settingNames?.[t.failure.provider] : undefined;
  return t.failure ? describeFailure(t.failure, names) : t.detail;
}

/**
 * A Finish. After a tool broke for a technical reason (an embedding endpoint down, say), an answer
 * that cites nothing this run verified rests on nothing the tools showed: the run fails with that
 * reason instead of releasing it (the text stays in the trace). A cited answer is released with the
 * failure named, so the gap is never silent (seed §1.3: a partial failure is declared by name).
 */
export function finishRun(loop: Loop, answer: string, stopReason: StopReason | null): AgentResult {
  const t = loop.state.technical;
  if (!t) return releaseRun(loop, ok(), answer, stopReason);
  const { state } = loop;
  const verified = checkCitations(answer, { citable: new Set(state.citable.keys()), located: state.located, refused: state.refused }).cited.length > 0;
  const detail = technicalDetail(loop);
  if (!verified) return releaseRun(loop, { status: 'FAILED', reason: t.reason, detail: `${detail} The model's answer cited nothing verified, so it is not given.`, failure: t.failure }, null, stopReason);
  const note = loop.answerLang === 'zh' ? `\n\n（注意：本次有一项检索未能执行，本回答可能有遗漏：${detail}）` : `\n\n(Note: a search could not run, so this answer may miss something: ${detail})`;
  return releaseRun(loop, ok(), `${answer}${note}`, stopReason);
}

/**
 * A model call that failed for good: FAILED with the provider's failure in words, whatever was verified;
 * a retry the budget refused says which budget and by how much. The run's stop reason so far (the final
 * round's BUDGET_LIMIT_REACHED) stays on the release.
 */
export function modelFailed(loop: Loop, error: ChatError, attempts: number, retryRefused: string | null, stopReason: StopReason | null): AgentResult {
  const failure = error.failure ? { ...error.failure, attempts } : null;
  const names = failure ? loop.o.settingNames?.[failure.provider] : undefined;
  const detail = failure ? describeFailure(failure, names) : error.message;
  return releaseRun(loop, { status: 'FAILED', reason: `MODEL_${error.kind.toUpperCase()}`, detail: retryRefused ? `${detail} It was not retried: ${retryRefused}.` : detail, failure }, null, stopReason);
}

/**
 * The run cannot go on (a controlled stop: saturation, a budget, a tool requested in the final round).
 * A technical failure met on the way is the reason (never hidden behind "insufficient evidence"); else
 * verified progress becomes a FALLBACK in the answer's language; with nothing verified it fails closed.
 */
export function giveUp(loop: Loop, reason: string, stopReason: StopReason | null): AgentResult {
  const { state, answerLang: lang } = loop;
  const stop = stopReason ?? loop.tracker.stopReason;
  if (state.technical) {
    const t = state.technical;
    return releaseRun(loop, { status: 'FAILED', reason: t.reason, detail: technicalDetail(loop), failure: t.failure }, null, stop);
  }
  const why = stopWords(stop, 'en') ?? reason.toLowerCase().replace(/_/g, ' ');
  if (state.facts.length) {
    const detail = `Stopped (${why}) before an answer was formed; the answer lists the ${state.facts.length} check${state.facts.length === 1 ? '' : 's'} made.`;
    return releaseRun(loop, { status: 'FALLBACK', reason: 'INSUFFICIENT_EVIDENCE', detail, failure: null }, renderFallback(state.progress(stop), lang), stop);
  }
  return releaseRun(loop, { status: 'FAILED', reason, detail: `Stopped (${why}) before anything was verified: no answer is given.`, failure: null }, null, stop);
}

/**
 * A Finish that asks the user for missing context (the seed's flowchart, information-gain §10): with
 * verified facts it is INSUFFICIENT_EVIDENCE, the question to the user followed by what was checked;
 * with none it is MISSING_REQUIRED_CONTEXT. Either way nothing verified is dressed up as an answer.
 */
export function clarify(loop: Loop, question: string, stopReason: StopReason | null): AgentResult {
  const { state } = loop;
  if (!state.facts.length) return releaseRun(loop, { status: 'FALLBACK', reason: 'MISSING_REQUIRED_CONTEXT', detail: 'The question needs information only the user has; the answer asks for it.', failure: null }, question, stopReason);
  const n = state.facts.length;
  const detail = `The model asked the user for more context after ${n} check${n === 1 ? '' : 's'}; the answer lists what was checked.`;
  return releaseRun(loop, { status: 'FALLBACK', reason: 'INSUFFICIENT_EVIDENCE', detail, failure: null }, `${question}\n\n${checkedLines(state.progress(stopReason), loop.answerLang).join('\n')}`, stopReason);
}
