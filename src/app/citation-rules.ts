import type { DataDir } from '../common/data-dir';
import { DocQaError } from '../common/errors';
import { questionLanguage } from '../harness/question-language';
import { activeBundle } from '../harness/prompt-store';

/**
 * The sections of DocQA's system prompt (seed §10.3) that tell an assistant how to use and cite
 * evidence: what an outside assistant calling DocQA's tools needs to answer as DocQA's own agent would.
 * The response and observation protocols, the scope and the stopping rules are the harness's loop and
 * do not apply to another program's.
 */
export const RULE_SECTIONS = ['evidence', 'coverage', 'citation', 'answer'] as const;

/** The text of `<name>…</name>` in a prompt template, tags included; null when the template has no such section. */
export function promptSection(template: string, name: string): string | null {
  const m = new RegExp(`^<${name}>\\n[\\s\\S]*?\\n</${name}>$`, 'm').exec(template);
  return m ? m[0] : null;
}

const FRAME = {
  en: {
    intro: (bundle: string) =>
      `Answer the question below from the learner's own documents in DocQA, using DocQA's tools (list_documents, get_outline, search_blocks, list_blocks, scan_term). Follow DocQA's rules for evidence and citations (prompt bundle ${bundle}):`,
    refs: 'A source marker names the `ref` (doc_id#block_id) of a block a tool returned. Each block also carries its title, source, section, file path, location and a file link: show them when the user wants to open a source.',
  },
  zh: {
    intro: (bundle: string) => `请根据学习者在 DocQA 中添加的文档回答下面的问题,使用 DocQA 的工具(list_documents、get_outline、search_blocks、list_blocks、scan_term),并遵守 DocQA 的证据与引用规则(提示词包 ${bundle}):`,
    refs: '来源标注写工具返回的块的 `ref`(doc_id#block_id)。每个块还带有标题、来源、章节、文件路径、位置和文件链接:用户想打开来源时请给出。',
  },
} as const;

export interface CitationPrompt {
  lang: 'zh' | 'en';
  bundle: { id: string; version: string; hash: string };
  text: string;
}

/**
 * The question wrapped in DocQA's evidence, coverage, citation and answer rules, from the bundle `ask`
 * would use for it (the promoted one, else the release baseline in the question's language). Reads the
 * data directory's prompt state only; writes nothing.
 */
export async function citationPrompt(dir: DataDir, question: string, lang?: 'zh' | 'en'): Promise<CitationPrompt> {
  const language = lang ?? (questionLanguage(question) === 'zh' ? 'zh' : 'en');
  const bundle = await activeBundle(dir, language);
  const sections = RULE_SECTIONS.map((s) => promptSection(bundle.text, s));
  if (sections.some((s) => s === null)) throw new DocQaError('prompt_bundle_invalid', `prompt bundle ${bundle.id} has no <${RULE_SECTIONS.filter((_, i) => sections[i] === null).join('>, <')}> section to give an outside assistant`);
  const frame = FRAME[language];
  const text = [frame.intro(`${bundle.id} ${bundle.version}`), ...(sections as string[]), frame.refs, `<question>\n${question}\n</question>`].join('\n');
  return { lang: language, bundle: { id: bundle.id, version: bundle.version, hash: bundle.hash }, text };
}
