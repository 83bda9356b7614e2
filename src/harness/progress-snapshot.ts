import { z } from 'zod';
import { type Lang, StepOutcome, StepScope } from '../shared/step-record';

/**
 * Verified progress (information-gain seed §10): what the tools really returned in this run, projected
 * from the run's own records — never from the model's words. A fallback answer is made of this and
 * nothing else; an error payload is not progress, and a run with no fact fails closed.
 */
export const ProgressSource = z.object({ ref: z.string(), doc_title: z.string(), section_path: z.string() });
export const ProgressFact = z.object({ tool_call_id: z.string(), scope: StepScope, outcome: StepOutcome });
export const Limitation = z.object({
  kind: z.enum(['not_admitted', 'tool_error', 'tool_unavailable', 'partial_collection']),
  tool_call_id: z.string().nullable(),
  scope: StepScope.nullable(),
  outcome: StepOutcome.nullable(),
  /** partial_collection: the documents that could not be indexed. */
  documents: z.array(z.string()),
});
export const ProgressSnapshot = z.object({
  stop_reason: z.string().nullable(),
  /** Blocks whose full text reached the model (search_blocks, list_blocks), in first-seen order. */
  sources: z.array(ProgressSource),
  /** Each admitted tool result, empty ones included: "scanned 42 documents for X: 0 hits" is a fact. */
  facts: z.array(ProgressFact),
  /** The canonical scopes that ran (tool + normalised input). */
  scopes_checked: z.array(z.string()),
  limitations: z.array(Limitation),
});
export type ProgressSnapshot = z.infer<typeof ProgressSnapshot>;
export type ProgressFact = z.infer<typeof ProgressFact>;
export type Limitation = z.infer<typeof Limitation>;

const STOP_WORDS: Record<string, Record<Lang, string>> = {
  INFORMATION_SATURATED: { en: 'further searches added nothing new', zh: '继续检索不再带来新信息' },
  BUDGET_LIMIT_REACHED: { en: 'the run reached its budget', zh: '本次运行达到了预算上限' },
  PROGRESS_PROTOCOL_VIOLATED: { en: 'the model repeatedly broke the protocol', zh: '模型连续违反协议' },
};

export function stopWords(reason: string | null, lang: Lang): string | null {
  return reason ? (STOP_WORDS[reason]?.[lang] ?? reason) : null;
}

function limitationLine(l: Limitation, lang: Lang): string {
  if (l.kind === 'partial_collection') return lang === 'zh' ? `未能入库、未覆盖的文档：${l.documents.join('、')}` : `documents that could not be indexed and were not covered: ${l.documents.join(', ')}`;
  const what = l.scope ? l.scope.words[lang] : '';
  if (l.kind === 'tool_unavailable') return lang === 'zh' ? `${l.scope?.tool ?? '工具'}本次不可用` : `${l.scope?.tool ?? 'a tool'} was unavailable in this run`;
  return `${what}: ${l.outcome ? l.outcome.words[lang] : ''}`;
}

/** The checked facts as lines ("- Scanning all 42 documents for “X”: 0 hits"). */
export function factLines(p: ProgressSnapshot, lang: Lang): string[] {
  return p.facts.map((f) => `- ${f.scope.words[lang]}${lang === 'zh' ? '：' : ': '}${f.outcome.words[lang]}`);
}

/** "Checked in this run:" and the checked facts, one per line. */
export function checkedLines(p: ProgressSnapshot, lang: Lang): string[] {
  return [lang === 'zh' ? '本次已核查：' : 'Checked in this run:', ...factLines(p, lang)];
}

/** The FALLBACK answer: what was checked, the sources consulted, what could not be checked, why it stopped. */
export function renderFallback(p: ProgressSnapshot, lang: Lang): string {
  const out: string[] = [];
  const stop = stopWords(p.stop_reason, lang);
  if (lang === 'zh') {
    out.push(`未能形成完整回答（证据不足${stop ? `：${stop}` : ''}）。本次已核查：`);
    out.push(...factLines(p, lang));
    if (p.sources.length) out.push(`查阅的来源：${p.sources.map((s) => s.section_path).filter((v, i, a) => a.indexOf(v) === i).join('；')}`);
    if (p.limitations.length) out.push(`未能核查：\n${p.limitations.map((l) => `- ${limitationLine(l, lang)}`).join('\n')}`);
  } else {
    out.push(`No complete answer could be formed (insufficient evidence${stop ? `: ${stop}` : ''}). Checked in this run:`);
    out.push(...factLines(p, lang));
    if (p.sources.length) out.push(`Sources consulted: ${p.sources.map((s) => s.section_path).filter((v, i, a) => a.indexOf(v) === i).join('; ')}`);
    if (p.limitations.length) out.push(`Not checked:\n${p.limitations.map((l) => `- ${limitationLine(l, lang)}`).join('\n')}`);
  }
  return out.join('\n');
}
