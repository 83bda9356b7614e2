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

const DISPLAY: Record<ToolName, string> = {
  list_documents: 'DocQA: List Documents',
  get_outline: 'DocQA: Document Outline',
  search_blocks: 'DocQA: Search Documents',
  list_blocks: 'DocQA: Read Blocks',
  scan_term: 'DocQA: Scan for a Term',
};

/** `contributes.languageModelTools`: each tool's name, `#` reference, descriptions and input schema from its zod value. */
export function languageModelTools(): Array<Record<string, unknown>> {
  return TOOLS.map((t) => ({
    name: lmToolName(t.name),
    toolReferenceName: lmToolName(t.name),
    displayName: DISPLAY[t.name],
    canBeReferencedInPrompt: true,
    icon: '$(book)',
    tags: ['docqa', 'read-only'],
    userDescription: `Read-only: ${t.description.split('. ')[0]!.replace(/\.$/, '')}, in DocQA's active index.`,
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
