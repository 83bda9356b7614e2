import { z } from 'zod';
import { stableJson } from '../common/stable-json';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { getOutline } from './get-outline';
import { listBlocks } from './list-blocks';
import { listDocuments } from './list-documents';
import { scanTerm } from './scan-term';
import { searchBlocks } from './search-blocks';
import { type Tool, type ToolContext, type ToolName, type ToolPayload, ToolFailure, errorPayload, withEstimate } from './tool';

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
    return withEstimate(await tool.run(parsed.data, ctx), ctx.snapshot);
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
