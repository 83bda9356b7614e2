import type { BlockBrief, Lang, StepCounts, StepOutcome, StepScope, Words } from '../shared/step-record';
import { NO_COUNTS } from '../shared/step-record';
import type { BlockView, OutcomeData, ScopeData, StepSummary, StepView, StepWords } from './tool';

/**
 * What the five tools' step records share: the documents a step covers (how many of how many, within a
 * question's scope), the phrases that name them, and the assembly of a summary from a tool's counts and
 * words. A tool's file says only what is its own.
 */

/**
 * The documents a request covers: the ones it names (each once), or all of them when it names none —
 * with a question scope (its doc_ids), counted within the scope.
 */
export function documentsOf(view: StepView, named: readonly string[] | undefined): ScopeData['documents'] {
  const { snapshot, questionScope: scope } = view;
  const titleOf = new Map(snapshot.documents.map((d) => [d.doc_id, d.title]));
  const titles = (ids: readonly string[]) => ids.map((id) => titleOf.get(id) ?? id);
  const all = scope ? scope.length : snapshot.documents.length;
  const scoped = scope ? { scoped: true } : {};
  const ids = [...new Set(named ?? [])];
  if (!ids.length) return { count: all, of: all, all: true, titles: scope ? titles(scope) : [], ...scoped };
  return { count: ids.length, of: all, all: Boolean(scope) && ids.length === all, titles: titles(ids), ...scoped };
}

/** A scope's data with its words. */
export function withWords(words: StepWords, data: ScopeData): StepScope {
  return { ...data, words: words.scope(data) };
}

/** A step's data with nothing but documents: the other fields empty. */
export function scopeData(tool: string, documents: ScopeData['documents'], over: Partial<Omit<ScopeData, 'tool' | 'documents'>> = {}): ScopeData {
  return { tool, documents, sections: [], text: null, filters: {}, ...over };
}

/** The step record of an admitted result from a tool's counts and items. */
export function summaryOf(
  words: StepWords,
  scope: StepScope,
  counts: Partial<StepCounts>,
  emptyReason: string | undefined,
  items: { returned?: BlockView[]; located?: string[]; briefs?: BlockBrief[]; doc_ids?: string[] },
): StepSummary {
  const data: OutcomeData = { ...NO_COUNTS, ...counts, empty_reason: emptyReason ?? null };
  const outcome: StepOutcome = { kind: emptyReason ? 'empty' : 'ok', ...data, error: null, not_admitted: null, ...words.outcome(scope, data) };
  return { scope, outcome, returned: items.returned ?? [], located: items.located ?? [], briefs: items.briefs ?? [], doc_ids: items.doc_ids ?? [] };
}

/** A block as a step list shows it: title, section and its first non-empty line (of the text or snippet). */
export function briefOf(b: { ref: string; doc_title: string; section_path: string }, text: string): BlockBrief {
  return { ref: b.ref, doc_title: b.doc_title, section_path: b.section_path, first_line: (text.split('\n').find((l) => l.trim()) ?? '').trim().slice(0, 160) };
}

/** Both languages of a phrase. */
export function inBoth(f: (lang: Lang) => string): Words {
  return { en: f('en'), zh: f('zh') };
}

export const quoted = (s: string) => `“${s}”`;
export const titled = (s: string, lang: Lang) => (lang === 'zh' ? `《${s}》` : `“${s}”`);
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The documents of a scope in words: one title, up to three titles, or how many of how many. */
export function docsPhrase(d: ScopeData['documents'], lang: Lang): string {
  const one = d.count === 1 && d.titles.length === 1;
  if (lang === 'zh') {
    if (one) return titled(d.titles[0]!, lang);
    if (d.scoped) return d.all ? `范围内的 ${d.of} 篇文档` : d.count <= 3 ? d.titles.map((t) => titled(t, lang)).join('、') : `范围内 ${d.of} 篇中的 ${d.count} 篇文档`;
    if (d.all) return `全部 ${d.of} 篇文档`;
    return d.count <= 3 ? d.titles.map((t) => titled(t, lang)).join('、') : `${d.count} 篇文档`;
  }
  if (one) return titled(d.titles[0]!, lang);
  if (d.scoped) return d.all ? `the ${d.of} documents in scope` : d.count <= 3 ? d.titles.map((t) => titled(t, lang)).join(', ') : `${d.count} of the ${d.of} documents in scope`;
  if (d.all) return `all ${d.of} document${d.of === 1 ? '' : 's'}`;
  return d.count <= 3 ? d.titles.map((t) => titled(t, lang)).join(', ') : `${d.count} of ${d.of} documents`;
}
