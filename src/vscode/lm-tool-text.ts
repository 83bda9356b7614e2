import { stringify } from 'yaml';
import type { DocQaApp } from '../app/docqa-app';
import { TOOLS, toolJsonSchema } from '../tools/registry';
import { TOOL_NAMES, type ToolName, type ToolPayload } from '../tools/tool';

/**
 * DocQA's five retrieval tools as VS Code Language Model Tools (agent mode, `#` references in any chat):
 * their package.json contribution, generated from the tool values (`npm run gen:manifest`), and their
 * results as text. Free of `vscode`: lm-tools.ts registers them.
 */
export const LM_TOOL_PREFIX = 'docqa_';

export const lmToolName = (tool: ToolName) => `${LM_TOOL_PREFIX}${tool}`;

export function toolOfLmName(name: string): ToolName | null {
  const bare = name.startsWith(LM_TOOL_PREFIX) ? name.slice(LM_TOOL_PREFIX.length) : '';
  return (TOOL_NAMES as readonly string[]).includes(bare) ? (bare as ToolName) : null;
}

/**
 * What a person reads of each tool (the tools list, the `#` picker, a call's line in the chat), in the
 * UI's two languages. The English description is the first sentence of the tool's own description; the
 * Chinese one is written here, beside it. The model reads `modelDescription`, which stays the tool's.
 */
const USER_WORDS: Record<ToolName, { name: { en: string; zh: string }; does: { zh: string } }> = {
  list_documents: { name: { en: 'DocQA: List Documents', zh: 'DocQA: 列出文档' }, does: { zh: '列出知识库中的文档，可按来源、语言或标题片段筛选' } },
  get_outline: { name: { en: 'DocQA: Document Outline', zh: 'DocQA: 文档大纲' }, does: { zh: '文档的章节结构：每个章节的唯一路径、层级、块数与词元数（直接的与含子章节的）以及首句' } },
  search_blocks: { name: { en: 'DocQA: Search Documents', zh: 'DocQA: 搜索文档' }, does: { zh: '找出与查询最匹配的 5 个块（固定的关键词 + 语义混合排序）' } },
  list_blocks: { name: { en: 'DocQA: Read Blocks', zh: 'DocQA: 读取块' }, does: { zh: '一个文档或其部分章节（含子章节）的全部块，按文档顺序完整给出全文' } },
  scan_term: { name: { en: 'DocQA: Scan for a Term', zh: 'DocQA: 扫描词语' }, does: { zh: '包含某个字面字符串的每个块，附每块的出现次数和首次出现处的片段，按文档再按块的顺序' } },
};

/** The nls key of one of a tool's words shown to people (`%…%` in package.json). */
const nlsKey = (tool: ToolName, field: 'displayName' | 'userDescription') => `languageModelTool.${lmToolName(tool)}.${field}`;
export const isLmToolNlsKey = (key: string) => key.startsWith('languageModelTool.');

/** The tools' words for package.nls.json (en) or package.nls.zh-cn.json (zh), in the registry's order. */
export function languageModelToolNls(lang: 'en' | 'zh'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of TOOLS) {
    const w = USER_WORDS[t.name];
    out[nlsKey(t.name, 'displayName')] = w.name[lang];
    out[nlsKey(t.name, 'userDescription')] = lang === 'zh' ? `只读（DocQA 的当前索引）：${w.does.zh}。` : `Read-only: ${t.description.split('. ')[0]!.replace(/\.$/, '')}, in DocQA's active index.`;
  }
  return out;
}

/** What the chat shows while a tool runs, in the UI language: its display name ("DocQA: Search Documents…"). */
export function invocationWords(lmName: string, lang: 'en' | 'zh'): string {
  const tool = toolOfLmName(lmName);
  return `${tool ? USER_WORDS[tool].name[lang] : lmName}…`;
}

/** `contributes.languageModelTools`: each tool's name, `#` reference, descriptions (people's through nls) and input schema from its zod value. */
export function languageModelTools(): Array<Record<string, unknown>> {
  return TOOLS.map((t) => ({
    name: lmToolName(t.name),
    toolReferenceName: lmToolName(t.name),
    displayName: `%${nlsKey(t.name, 'displayName')}%`,
    canBeReferencedInPrompt: true,
    icon: '$(book)',
    tags: ['docqa', 'read-only'],
    userDescription: `%${nlsKey(t.name, 'userDescription')}%`,
    modelDescription: `${t.description} Read-only: it reads DocQA's active index of the user's documents. Cite a block by its ref doc_id#block_id with its title and source.`,
    inputSchema: toolJsonSchema(t),
  }));
}

/** Default bound on a result's size when the caller gives no token budget (an agent's context is shared). */
export const DEFAULT_RESULT_TOKENS = 8000;

/** Every item that names a block gets its citable ref `doc_id#block_id` first. */
function withRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withRefs);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = typeof o.doc_id === 'string' && typeof o.block_id === 'string' ? { ref: `${o.doc_id}#${o.block_id}` } : {};
    for (const [k, x] of Object.entries(o)) out[k] = withRefs(x);
    return out;
  }
  return v;
}

/** A payload as the agent reads it: YAML (refs, titles, sources and sections kept), or the error, or why it was empty. */
export function payloadText(tool: ToolName, p: ToolPayload, maxTokens: number): string {
  if (p.error) return `${lmToolName(tool)} failed (${p.error.code}): ${p.error.message}${p.error.retryable ? ' (a retry may help)' : ''}`;
  if (p.token_estimate > maxTokens) return `${lmToolName(tool)}: the result is about ${p.token_estimate} tokens, more than the ${maxTokens} this chat allows for it; nothing of it is given. Narrow the request (fewer doc_ids, one section_path, a more specific query or term, a lower limit).`;
  const { token_estimate: _estimate, ...fields } = p;
  return `# ${lmToolName(tool)} (DocQA, read-only; cite blocks as doc_id#block_id)\n${stringify(withRefs(fields), { lineWidth: 0 })}`;
}

/** One invocation on the active snapshot, pinned for the call (app.runTool), as text. */
export async function invokeToolText(app: DocQaApp, lmName: string, input: unknown, tokenBudget: number | undefined): Promise<string> {
  const tool = toolOfLmName(lmName);
  if (!tool) return `unknown DocQA tool ${lmName}: the tools are ${TOOL_NAMES.map(lmToolName).join(', ')}`;
  const payload = await app.runTool(tool, input);
  return payloadText(tool, payload, Math.max(1, tokenBudget ?? DEFAULT_RESULT_TOKENS));
}
