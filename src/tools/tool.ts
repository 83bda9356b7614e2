import { z } from 'zod';
import type { LoadedSnapshot } from '../index/snapshot-store';
import { countTokens } from '../index/tokenizer';

/** Version of the five tools' input/output contract (seed §10.1, Appendix A.2); recorded in run manifests. */
export const TOOL_CONTRACT_VERSION = '1';

export const TOOL_NAMES = ['list_documents', 'get_outline', 'search_blocks', 'list_blocks', 'scan_term'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const ToolErrorCode = z.enum(['invalid_argument', 'scope_not_found', 'collection_unavailable', 'upstream_unavailable', 'tool_internal_error']);
export type ToolErrorCode = z.infer<typeof ToolErrorCode>;
export const EmptyReason = z.enum(['no_match', 'scope_empty', 'collection_empty']);
export type EmptyReason = z.infer<typeof EmptyReason>;

export interface ToolError {
  code: ToolErrorCode;
  message: string;
  retryable: boolean;
}

/** What a tool returns: its fields, or an error; every payload carries its own token estimate. */
export type ToolPayload = Record<string, unknown> & { token_estimate: number; empty_reason?: EmptyReason; error?: ToolError };

/** Scores and ranks go to the trace, never to the model. */
export interface ToolTraceEvent {
  tool: ToolName;
  detail: Record<string, unknown>;
}

/** The pinned snapshot a request reads, plus how to embed a query for it. */
export interface ToolContext {
  snapshot: LoadedSnapshot;
  /** Embeds a search query with the snapshot's embedding model; absent for keyword-only snapshots. */
  embedQuery?: (query: string, signal?: AbortSignal) => Promise<Float32Array>;
  signal?: AbortSignal;
  onTrace?: (e: ToolTraceEvent) => void;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: ToolName;
  description: string;
  input: S;
  run(input: z.infer<S>, ctx: ToolContext): Promise<Record<string, unknown>>;
}

/** A business or execution failure, thrown inside a tool and turned into `payload.error`. */
export class ToolFailure extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Adds `token_estimate`: the index tokenizer's count of the payload as the model will see it (JSON). */
export function withEstimate(fields: Record<string, unknown>, snapshot?: LoadedSnapshot): ToolPayload {
  return { ...fields, token_estimate: estimateTokens(fields, snapshot) };
}

// eslint-disable-next-line no-control-regex -- the characters JSON escapes include control characters
const NEEDS_ESCAPE = /[\n\r\t"\\\u0000-\u001f]/g;

/**
 * Token estimate of a payload's JSON with the index tokenizer. Block texts are not counted again: each
 * block's exact count is already in the snapshot, so the JSON is counted with texts (and snippets) left
 * empty, and each adds its block's count (a snippet its share by length), one token per character JSON
 * escapes and two for the seam.
 * That keeps the estimate at or a little above the exact count (budget admission wants the safe side)
 * and costs nothing per text, where counting a 2,000-block section afresh took most of a second.
 */
export function estimateTokens(fields: Record<string, unknown>, snapshot?: LoadedSnapshot): number {
  if (!snapshot) return countTokens(JSON.stringify(fields));
  const counts = tokenCounts(snapshot);
  let extra = 0;
  // Shallow copies with texts emptied (a JSON.stringify replacer is several times slower on big payloads).
  const blank = (item: unknown): unknown => {
    if (!item || typeof item !== 'object' || typeof (item as { ref?: unknown }).ref !== 'string') return item;
    const o = item as Record<string, unknown>;
    const known = counts.get(o.ref as string);
    if (!known) return item;
    const copy = { ...o };
    for (const key of ['text', 'snippet'] as const) {
      const value = o[key];
      if (typeof value !== 'string') continue;
      // A snippet is a piece of its block: its share of the block's count, rounded up.
      const tokens = key === 'text' ? known.tokens : Math.ceil((known.tokens * value.length) / Math.max(1, known.chars));
      extra += tokens + 2 + (value.match(NEEDS_ESCAPE)?.length ?? 0);
      copy[key] = '';
    }
    return copy;
  };
  const skeleton: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) skeleton[k] = Array.isArray(v) ? v.map(blank) : v;
  return countTokens(JSON.stringify(skeleton)) + extra;
}

const countsCache = new WeakMap<LoadedSnapshot, Map<string, { tokens: number; chars: number }>>();
function tokenCounts(s: LoadedSnapshot): Map<string, { tokens: number; chars: number }> {
  let m = countsCache.get(s);
  if (!m) {
    m = new Map();
    for (const d of s.documents) for (const b of d.blocks) m.set(`${d.doc_id}#${b.block_id}`, { tokens: b.token_count, chars: b.text.length });
    countsCache.set(s, m);
  }
  return m;
}

export function errorPayload(code: ToolErrorCode, message: string, retryable = false): ToolPayload {
  return withEstimate({ error: { code, message, retryable } });
}

/** A block as every tool shows it: citable ref, where it comes from, and its full text. */
export interface BlockView {
  ref: string;
  doc_id: string;
  block_id: string;
  doc_title: string;
  source_label: string;
  section_path: string;
  text: string;
}

export function blockView(snapshot: LoadedSnapshot, global: number): BlockView {
  const [d, b] = snapshot.blockRefs[global]!;
  const doc = snapshot.documents[d]!;
  const block = doc.blocks[b]!;
  return { ref: `${doc.doc_id}#${block.block_id}`, doc_id: doc.doc_id, block_id: block.block_id, doc_title: doc.title, source_label: doc.source_label, section_path: block.section_path, text: block.text };
}

/** Unicode NFC then case folding (lower-casing), nothing else: what scan_term and title matching compare. */
export function fold(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

/** Document index by doc_id; every id must exist or the whole call fails with scope_not_found. */
export function resolveDocs(snapshot: LoadedSnapshot, ids: readonly string[]): number[] {
  const byId = new Map(snapshot.documents.map((d, i) => [d.doc_id, i]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) throw new ToolFailure('scope_not_found', `unknown doc_id: ${missing.join(', ')}; list_documents gives the valid ids`);
  return ids.map((id) => byId.get(id)!);
}
