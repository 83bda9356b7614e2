// The low-level Server, not McpServer: McpServer validates tool arguments itself and answers a bad one
// with its own words, where DocQA's contract answers invalid_argument with the schema's reasons.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { citationPrompt } from '../app/citation-rules';
import type { ToolCallResult, ToolReader } from '../app/tool-reader';
import { errorMessage } from '../common/errors';
import { findTool } from '../tools/registry';
import { TOOL_NAMES, type ToolName } from '../tools/tool';
import { mcpOutputSchema, mcpTools } from './mcp-tools';

export const CITED_ANSWER_PROMPT = 'docqa_cited_answer';

const INSTRUCTIONS =
  'DocQA answers questions about the learner’s own documents (notes, PDFs, books, slides) from its local index. Start with list_documents; get_outline then list_blocks read a section completely; search_blocks finds candidates; scan_term proves whether a literal string occurs. Cite a block by its ref (doc_id#block_id); each block carries its title, source, section, file path and location. The prompt docqa_cited_answer carries DocQA’s evidence and citation rules. Everything here is read-only.';

/** A tool payload as an MCP result: structured content (with the snapshot that answered) and the same JSON as text; an error payload is a tool error with the contract's code and words. */
export function toolResult(name: ToolName, r: ToolCallResult): CallToolResult {
  const { payload } = r;
  if (payload.error) {
    // No structuredContent on an error: a client checks structured content against the success schema.
    const text = JSON.stringify({ error: payload.error, ...(r.snapshot_id ? { snapshot_id: r.snapshot_id } : {}) });
    return { isError: true, content: [{ type: 'text', text: `${payload.error.code}: ${payload.error.message}` }, { type: 'text', text }] };
  }
  const structured: Record<string, unknown> = { ...payload, ...(r.snapshot_id ? { snapshot_id: r.snapshot_id } : {}), ...(r.note ? { note: r.note } : {}) };
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(structured) }];
  if (r.note) content.push({ type: 'text', text: r.note });
  const tool = findTool(name);
  return { content, ...(tool && mcpOutputSchema(tool) ? { structuredContent: structured } : {}) };
}

export interface McpServerOptions {
  reader: ToolReader;
  version: string;
}

/**
 * DocQA's MCP server: the five tools (read-only) over one data directory, and a prompt carrying
 * DocQA's citation rules. Each call is answered by the ToolReader on the snapshot active when it starts.
 */
export function createMcpServer({ reader, version }: McpServerOptions): Server {
  const server = new Server({ name: 'docqa', title: 'DocQA', version }, { capabilities: { tools: {}, prompts: {} }, instructions: INSTRUCTIONS });
  const tools = mcpTools();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    if (!(TOOL_NAMES as readonly string[]).includes(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}; DocQA's tools are ${TOOL_NAMES.join(', ')}`);
    const r = await reader.call(name as ToolName, req.params.arguments ?? {}, extra.signal);
    return toolResult(name as ToolName, r);
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      {
        name: CITED_ANSWER_PROMPT,
        title: 'Answer from my documents, with DocQA citations',
        description: 'A question wrapped in DocQA’s rules for evidence, coverage and citations (its system prompt), so the answer cites blocks as 【来源:doc_id#block_id】 from DocQA’s tools.',
        arguments: [
          { name: 'question', description: 'the question about your documents', required: true },
          { name: 'lang', description: 'zh or en: the language of the rules (default: Chinese when the question has Chinese characters)', required: false },
        ],
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name !== CITED_ANSWER_PROMPT) throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${req.params.name}; DocQA offers ${CITED_ANSWER_PROMPT}`);
    const { question, lang } = req.params.arguments ?? {};
    if (!question?.trim()) throw new McpError(ErrorCode.InvalidParams, 'the prompt needs a question (argument "question")');
    if (lang !== undefined && lang !== '' && lang !== 'zh' && lang !== 'en') throw new McpError(ErrorCode.InvalidParams, `lang must be zh or en, not ${JSON.stringify(lang)}`);
    try {
      const p = await citationPrompt(reader.dir, question.trim(), lang ? lang : undefined);
      return { description: `DocQA’s citation rules (${p.bundle.id} ${p.bundle.version}), ${p.lang}`, messages: [{ role: 'user', content: { type: 'text', text: p.text } }] };
    } catch (err) {
      throw new McpError(ErrorCode.InternalError, `DocQA’s prompt could not be read: ${errorMessage(err)}`);
    }
  });
  return server;
}
