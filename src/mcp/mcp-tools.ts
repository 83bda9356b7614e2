import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS, toolJsonSchema } from '../tools/registry';
import type { Tool } from '../tools/tool';

/** A JSON Schema node, as far as the spot properties need to read one. */
type Schema = Record<string, unknown>;

/** What withSpots (src/app/block-spots.ts) adds to a block item, as JSON Schema. */
const BLOCK_SPOT: Schema = {
  path: { type: 'string', description: 'the source file the block was read from (absolute path)' },
  location: {
    type: 'object',
    description: 'where the block sits in its file: {kind:"lines",line_start,line_end} | {kind:"page",page} (PDF) | {kind:"paragraphs",first,last} | {kind:"chapter",chapter,first,last} (EPUB) | {kind:"slide",slide,first,last}; all 1-based',
    properties: { kind: { type: 'string', enum: ['lines', 'page', 'paragraphs', 'chapter', 'slide'] } },
    required: ['kind'],
  },
  location_label: { type: 'string', description: 'the location in a few words: "lines 3-5", "page 2", "slide 4 ¶ 1-3"' },
  link: { type: 'string', description: 'file:// link to the spot (#L3-L5 for lines, #page=2 for a PDF page)' },
};
const DOC_SPOT: Schema = { path: { type: 'string', description: 'the source file of the document (absolute path)' } };

/** Adds the spot properties to every array of block items (items with a `ref`) and document items (with a `doc_id`) a schema describes. */
function addSpots(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(addSpots);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node as Schema)) out[k] = addSpots(v);
  if (out.type === 'array' && out.items && typeof out.items === 'object') {
    const items = out.items as Schema;
    const props = items.properties as Schema | undefined;
    if (props && ('ref' in props || 'doc_id' in props)) {
      const extra = 'ref' in props ? BLOCK_SPOT : DOC_SPOT;
      out.items = { ...items, properties: { ...props, ...extra }, ...(Array.isArray(items.required) ? { required: [...(items.required as string[]), ...Object.keys(extra).filter((k) => k === 'path')] } : {}) };
    }
  }
  return out;
}

/** The MCP structured result's own fields besides the tool's payload. */
const RESULT_FIELDS: Schema = {
  snapshot_id: { type: 'string', description: 'the DocQA snapshot that answered (pinned for the whole call)' },
  note: { type: 'string', description: 'how search_blocks searched when it could not embed the query (keyword-only, and why)' },
};

/**
 * The MCP output schema of a tool: its payload's schema as the tool declares it (zod 4 → JSON Schema),
 * with the spots DocQA adds for an outside reader and the result's own fields. Undefined for a tool that
 * declares no output schema.
 */
export function mcpOutputSchema(tool: Tool): McpTool['outputSchema'] | undefined {
  const payload = payloadJsonSchema(tool);
  if (!payload) return undefined;
  const withSpots = addSpots(payload) as Schema;
  return { ...withSpots, type: 'object', properties: { ...((withSpots.properties as Schema | undefined) ?? {}), ...RESULT_FIELDS } } as McpTool['outputSchema'];
}

/** The JSON Schema of a tool's successful payload, when the tool declares one. */
function payloadJsonSchema(_tool: Tool): Schema | null {
  return null;
}

/** Searching in words, for search_blocks' description: what this server does with the query. */
const SEARCH_NOTE =
  ' Over MCP: the query is embedded with the snapshot’s embedding model only when that endpoint is configured for this server (DOCQA_EMBEDDING_* and its key, or a local server); otherwise the search is keyword-only, and the result’s mode and note say so.';

const TITLES: Record<string, string> = {
  list_documents: 'List documents',
  get_outline: 'Get document outlines',
  search_blocks: 'Search blocks',
  list_blocks: 'List every block of a scope',
  scan_term: 'Scan for a literal term',
};

/** One tool as MCP lists it: read-only, input schema from the zod schema it validates with. */
export function mcpTool(tool: Tool): McpTool {
  const output = mcpOutputSchema(tool);
  return {
    name: tool.name,
    title: TITLES[tool.name],
    description: `${tool.description}${tool.name === 'search_blocks' ? SEARCH_NOTE : ''} Every block carries its ref (doc_id#block_id) for citations, its document's title and source, its section, and its file path, location and link.`,
    inputSchema: toolJsonSchema(tool) as McpTool['inputSchema'],
    ...(output ? { outputSchema: output } : {}),
    annotations: { title: TITLES[tool.name], readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/** The five tools, in the registry's order. */
export function mcpTools(): McpTool[] {
  return TOOLS.map(mcpTool);
}
