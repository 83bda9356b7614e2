import { z } from 'zod';
import { stableJson } from '../common/stable-json';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { getOutline } from './get-outline';
import { listBlocks } from './list-blocks';
import { listDocuments } from './list-documents';
import { scanTerm } from './scan-term';
import { searchBlocks } from './search-blocks';
import { NO_COUNTS, type StepOutcome, type StepScope, type Words, errorOutcome, notAdmittedOutcome } from '../shared/step-record';
import { type OutcomeData, type ScopeData, type StepSummary, type StepView, type Tool, type ToolContext, type ToolName, type ToolPayload, ErrorPayload, ToolFailure, errorPayload, withEstimate } from './tool';

/** The tools, in the order the prompt lists them: a new tool is its file and one line here. */
export const TOOLS: ReadonlyArray<Tool> = [listDocuments, getOutline, searchBlocks, listBlocks, scanTerm] as ReadonlyArray<Tool>;

export function findTool(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name);
}

const schemas = new WeakMap<Tool, Record<string, unknown>>();

/** The JSON Schema shown to the model, rendered (once per tool) from the same zod schema that validates the input. */
export function toolJsonSchema(tool: Tool): Record<string, unknown> {
  let schema = schemas.get(tool);
  if (!schema) {
    // The examples are for people (`docqa tool --help`): the model's prompt stays as it was.
    const { $schema: _ignored, examples: _examples, ...rest } = z.toJSONSchema(tool.input) as Record<string, unknown>;
    schemas.set(tool, (schema = rest));
  }
  return structuredClone(schema);
}

const outputSchemas = new WeakMap<Tool, Record<string, unknown>>();

/**
 * The JSON Schema of what a tool answers: its output fields plus `token_estimate`, or the shared error
 * payload. For hosts that list the tools with their result shapes (MCP, VS Code language-model tools).
 */
export function toolOutputJsonSchema(tool: Tool): Record<string, unknown> {
  let schema = outputSchemas.get(tool);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(toolPayloadSchema(tool)) as Record<string, unknown>;
    outputSchemas.set(tool, (schema = rest));
  }
  return structuredClone(schema);
}

/** The zod schema of a tool's payload: its output with the token estimate, or an error payload. */
export function toolPayloadSchema(tool: Tool): z.ZodType {
  const output = tool.output as unknown as z.ZodObject;
  return z.union([output.extend({ token_estimate: z.number().int() }).strict(), ErrorPayload]);
}

/**
 * The fields of a raw request its schema accepts, as given: what a step shows of a request, valid or not
 * (a refused request is shown with what could be read of it, and answered with the refusal).
 */
function readableFields(tool: Tool, raw: unknown): Record<string, unknown> {
  const shape = (tool.input as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const input = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [k, field] of Object.entries(shape)) if (input[k] !== undefined && field.safeParse(input[k]).success) out[k] = input[k];
  return out;
}

/** What a request looks at, in data and words (shown while it runs). */
export function describeCall(name: ToolName, rawInput: unknown, view: StepView): StepScope {
  const tool = findTool(name)!;
  return tool.describe(readableFields(tool, rawInput), view);
}

/**
 * The step record of a call from its payload: the tool's own summary of a result, or for an error
 * payload the shared error outcome. Nothing here reads a tool's fields.
 */
export function summarizeCall(name: ToolName, rawInput: unknown, payload: ToolPayload, view: StepView): StepSummary {
  const tool = findTool(name)!;
  const input = readableFields(tool, rawInput);
  if (!payload.error) return tool.summarize(input, payload, view);
  return { scope: tool.describe(input, view), outcome: errorOutcome({ code: payload.error.code, message: payload.error.message }), returned: [], located: [], briefs: [], doc_ids: [] };
}

/** A stored outcome's fields without its words (a record written before outcomes carried them). */
export type UnwordedOutcome = Omit<StepOutcome, 'words' | 'checked' | 'covers' | 'tally'>;

/** The scope of a step stored without words, in its tool's words (a tool no longer offered: its name). */
export function wordedScope(s: ScopeData): StepScope {
  const tool = findTool(s.tool);
  const words: Words = tool ? tool.words.scope(s) : { en: s.tool, zh: s.tool };
  return { ...s, words };
}

/** The outcome of a step stored without words, in its tool's words (an error or a refusal: the shared ones). */
export function wordedOutcome(s: ScopeData, o: UnwordedOutcome): StepOutcome {
  if (o.kind === 'error') return { ...errorOutcome(o.error), not_admitted: o.not_admitted };
  const data: OutcomeData = { blocks: o.blocks, hits: o.hits, hit_blocks: o.hit_blocks, hit_documents: o.hit_documents, documents: o.documents, sections: o.sections, empty_reason: o.empty_reason };
  const tool = findTool(s.tool);
  const told = tool ? tool.words.outcome(s, data) : { words: { en: o.kind, zh: o.kind }, checked: null, covers: null, tally: null };
  const admitted: StepOutcome = { ...NO_COUNTS, ...o, kind: o.kind, ...told };
  return o.kind === 'not_admitted' && o.not_admitted ? notAdmittedOutcome({ ...admitted, kind: 'ok' }, o.not_admitted) : admitted;
}

function describeIssue(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`).join('; ');
}

/**
 * Runs one tool on a pinned snapshot: validates the input, runs the tool, and turns every outcome into
 * a payload — fields, `empty_reason`, or `error {code, message, retryable}` — with its token estimate.
 * Only cancellation escapes as an exception.
 */
export async function runTool(name: ToolName, rawInput: unknown, ctx: ToolContext): Promise<ToolPayload> {
  const tool = findTool(name);
  if (!tool) return errorPayload('invalid_argument', `unknown tool ${name}`);
  const parsed = tool.input.safeParse(rawInput ?? {});
  if (!parsed.success) return errorPayload('invalid_argument', describeIssue(parsed.error));
  try {
    return withEstimate((await tool.run(parsed.data, ctx)) as object, ctx.snapshot);
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    if (err instanceof ToolFailure) return errorPayload(err.code, err.message, err.retryable);
    return errorPayload('tool_internal_error', `${name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The duplicate-scope key of a tool request on the run's snapshot (information-gain seed §6): exactly as
 * strict as the tool. An input the schema refuses is keyed by the refusal (the payload is that error); a
 * valid one by the tool's own scope, or by the business error its resolution ends in. So two requests
 * share a key if and only if the tool answers both with the same payload: ` d1` is not `d1`, absent and
 * `[]` section paths are one scope, a scan term differing only in case is one scan.
 */
export function toolScopeKey(name: ToolName, rawInput: unknown, snapshot: LoadedSnapshot, questionScope?: readonly string[]): string {
  const tool = findTool(name);
  if (!tool) return unlistedScopeKey(name, rawInput);
  const parsed = tool.input.safeParse(rawInput ?? {});
  if (!parsed.success) return `${name}:invalid_argument:${describeIssue(parsed.error)}`;
  try {
    return `${name}:${stableJson(tool.scope(parsed.data, snapshot, questionScope))}`;
  } catch (err) {
    if (err instanceof ToolFailure) return `${name}:${err.code}:${err.message}`;
    throw err;
  }
}

/** The key of a request for a tool the run does not offer: its name and input as written (keys sorted). */
export function unlistedScopeKey(name: string, rawInput: unknown): string {
  return `${name}:${stableJson(rawInput ?? {})}`;
}
