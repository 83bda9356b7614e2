import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BlockLocation } from '../shared/block-location';
import { TOOLS, toolJsonSchema } from '../tools/registry';
import type { Tool } from '../tools/tool';

/** A JSON Schema node, as far as the spot properties need to read one. */
type Schema = Record<string, unknown>;

/** A zod schema as JSON Schema, without the `$schema` line (MCP embeds it in a tool). */
function jsonSchemaOf(schema: z.ZodType): Schema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Schema;
  return rest;
}

/** What withSpots (src/app/block-spots.ts) adds to a block item, as JSON Schema. */
const BLOCK_SPOT: Schema = {
  path: { type: 'string', description: 'the source file the block was read from (absolute path)' },
  location: { ...jsonSchemaOf(BlockLocation), description: 'where the block sits in its file, 1-based: lines, a PDF page, or the paragraphs, chapter or slide of a rendered document' },
  location_label: { type: 'string', description: 'the location in a few words: "lines 3-5", "page 2", "slide 4 ¶ 1-3"' },
  link: { type: 'string', description: 'file:// link to the spot (#L3-L5 for lines, #page=2 for a PDF page)' },
};
const DOC_SPOT: Schema = { path: { type: 'string', description: 'the source file of the document (absolute path)' } };

/** An array schema of block items (with a `ref`) or document items (with a `doc_id`), with the spots added to its items. */
function withSpotItems(node: unknown): unknown {
  const arr = node as Schema | null;
  const items = arr?.type === 'array' ? (arr.items as Schema | undefined) : undefined;
  const props = items?.properties as Schema | undefined;
  if (!items || !props || !('ref' in props || 'doc_id' in props)) return node;
  const extra = 'ref' in props ? BLOCK_SPOT : DOC_SPOT;
  const required = Array.isArray(items.required) ? { required: [...(items.required as string[]), 'path'] } : {};
  return { ...arr, items: { ...items, properties: { ...props, ...extra }, ...required } };
}

/** The spots added to the schema's top-level arrays, exactly where withSpots adds them to a payload. */
function addSpots(root: Schema): Schema {
  const props = (root.properties as Schema | undefined) ?? {};
  return { ...root, properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, withSpotItems(v)])) };
}

/** The MCP structured result's own fields besides the tool's payload. */
const RESULT_FIELDS: Schema = {
  snapshot_id: { type: 'string', description: 'the DocQA snapshot that answered (pinned for the whole call)' },
  note: { type: 'string', description: 'how search_blocks searched when it could not embed the query (keyword-only, and why)' },
};

/**
 * The MCP output schema of a tool: its payload's schema as the tool declares it (zod 4 → JSON Schema),
 * with the spots DocQA adds for an outside reader and the result's own fields.
 */
export function mcpOutputSchema(tool: Tool): McpTool['outputSchema'] | undefined {
  const payload = payloadJsonSchema(tool);
  if (!payload) return undefined;
  const withSpots = addSpots(payload);
  return { ...withSpots, type: 'object', properties: { ...((withSpots.properties as Schema | undefined) ?? {}), ...RESULT_FIELDS } } as McpTool['outputSchema'];
}

/**
 * The JSON Schema of a tool's successful payload: the output the tool declares, with its token estimate.
 * A failure is a tool error (isError) with no structured content, so the error payload is not part of it.
 */
function payloadJsonSchema(tool: Tool): Schema | null {
  const output = tool.output as unknown as z.ZodObject | undefined;
  if (!output?.extend) return null;
  return jsonSchemaOf(output.extend({ token_estimate: z.number().int() }));
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
