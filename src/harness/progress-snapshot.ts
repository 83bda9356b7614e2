import { type Limitation, type ProgressSnapshot, stopWords } from '../shared/run-result';
import type { Lang } from '../shared/step-record';

/**
 * Verified progress (information-gain seed §10) in words: a fallback answer is made of the run's facts
 * and nothing else (the schemas are the run's vocabulary, src/shared/run-result.ts).
 */

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
