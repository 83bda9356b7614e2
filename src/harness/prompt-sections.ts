import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { TOOLS, toolJsonSchema } from '../tools/registry';
import type { ToolName } from '../tools/tool';
import { type RunScope, scopeStatus } from './run-scope';

/** The {tools} section of the prompt: each whitelisted tool's name, description and JSON Schema. */
export function toolsPromptText(names: ReadonlyArray<ToolName> = TOOLS.map((t) => t.name)): string {
  return TOOLS.filter((t) => names.includes(t.name))
    .map((t) => `- ${t.name}: ${t.description}\n  input schema: ${JSON.stringify(toolJsonSchema(t))}`)
    .join('\n');
}

/** The {collection_status} section: the pinned snapshot's id, completeness and failed documents; a scoped question's documents. */
export function collectionStatusText(s: LoadedSnapshot, scope?: RunScope): string {
  const m = s.manifest;
  return JSON.stringify({
    snapshot_id: m.id,
    completeness: m.state === 'ready_partial' ? 'partial' : 'complete',
    failed_documents: m.failed_documents.map((f) => ({ path: f.path, stage: f.stage, code: f.code, message: f.message })),
    ...(scope ? { question_scope: scopeStatus(s, scope) } : {}),
  });
}
