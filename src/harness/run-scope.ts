import { z } from 'zod';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { findTool } from '../tools/registry';
import type { ParsedAction } from './action-parser';

/**
 * The documents a question is limited to (the person's `@` scope in the chat). The whole run stays
 * inside them, whatever the model asks:
 * - a tool call that names no documents is narrowed to the scope (`doc_ids` filled in: what the person
 *   meant, and what the prompt's collection_status tells the model);
 * - a call that names a document outside the scope runs nothing outside it: the tool answers
 *   `scope_not_found` naming the scope's doc_ids (ToolContext.scope), an Observation the model can correct;
 * - list_documents lists only the scope's documents.
 */
export const RunScope = z.object({ doc_ids: z.array(z.string().min(1)).min(1) });
export type RunScope = z.infer<typeof RunScope>;

/** The input fields a tool declares (its schema's), so the narrowing asks the tool, not its name. */
function fieldsOf(tool: string): Set<string> {
  const shape = (findTool(tool)?.input as { shape?: Record<string, unknown> } | undefined)?.shape;
  return new Set(Object.keys(shape ?? {}));
}

/**
 * A tool input inside the scope: an absent or empty `doc_ids` list filled with the scope, or an absent
 * `doc_id` when the scope is one document — for the tools whose input has that field.
 */
export function narrowInput(tool: string, input: Record<string, unknown>, scope: RunScope | undefined): Record<string, unknown> {
  if (!scope) return input;
  const fields = fieldsOf(tool);
  if (fields.has('doc_ids') && (input.doc_ids === undefined || (Array.isArray(input.doc_ids) && input.doc_ids.length === 0))) return { ...input, doc_ids: [...scope.doc_ids] };
  if (fields.has('doc_id') && input.doc_id === undefined && scope.doc_ids.length === 1) return { ...input, doc_id: scope.doc_ids[0] };
  return input;
}

/** The parsed action with its tool input narrowed to the scope (anything else as it was). */
export function narrowAction(action: ParsedAction, scope: RunScope | undefined): ParsedAction {
  if (!scope || action.kind !== 'tool') return action;
  const input = narrowInput(action.tool, action.envelope.input, scope);
  return input === action.envelope.input ? action : { ...action, envelope: { ...action.envelope, input } };
}

/** What the prompt's collection_status says about the scope: the documents, and the rule. */
export function scopeStatus(snapshot: LoadedSnapshot, scope: RunScope): Record<string, unknown> {
  const titles = new Map(snapshot.documents.map((d) => [d.doc_id, d.title]));
  return {
    doc_ids: scope.doc_ids,
    documents: scope.doc_ids.map((id) => ({ doc_id: id, title: titles.get(id) ?? id })),
    rule: 'The user limited this question to these documents: every tool searches only them, a tool call without doc_ids is run on them, and other doc_ids are refused.',
  };
}
