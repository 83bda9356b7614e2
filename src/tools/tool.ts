import { z } from 'zod';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { byRef, docIndex } from '../index/store/block-by-ref';
import { locateBlock } from '../index/search/block-priors';
import { countTokens } from '../common/tokenizer';
import type { BlockBrief, StepCounts, StepOutcome, StepScope, Words } from '../shared/step-record';

/**
 * Version of the five tools' input/output contract (seed §10.1, Appendix A.2); recorded in run manifests.
 * 2: an unknown doc_id fails search_blocks and scan_term on an empty collection too; scan_term echoes the
 * term as scanned (NFC, folded); search_blocks ranks link lists below content and spreads its results
 * over sections; section paths write `>` in a title as `›`.
 */
export const TOOL_CONTRACT_VERSION = '2';

export const TOOL_NAMES = ['list_documents', 'get_outline', 'search_blocks', 'list_blocks', 'scan_term'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const ToolErrorCode = z.enum(['invalid_argument', 'scope_not_found', 'collection_unavailable', 'upstream_unavailable', 'tool_internal_error']);
export type ToolErrorCode = z.infer<typeof ToolErrorCode>;
export const EmptyReason = z.enum(['no_match', 'scope_empty', 'collection_empty']);
export type EmptyReason = z.infer<typeof EmptyReason>;

export const ToolError = z.object({
  code: ToolErrorCode,
  message: z.string(),
  /**
   * Whether calling again could help. No tool is retried by the harness: the one transient
   * dependency, the query embedding, has already had its retry inside the embedding client.
   */
  retryable: z.boolean(),
});
export type ToolError = z.infer<typeof ToolError>;

/** What a tool returns: its fields, or an error; every payload carries its own token estimate. */
export type ToolPayload = Record<string, unknown> & { token_estimate: number; empty_reason?: EmptyReason; error?: ToolError };

/** A payload that failed: every tool's, the same shape. */
export const ErrorPayload = z.object({ error: ToolError, token_estimate: z.number().int() }).strict();
export type ErrorPayload = z.infer<typeof ErrorPayload>;

/** Scores and ranks go to the trace, never to the model. */
export interface ToolTraceEvent {
  tool: ToolName;
  detail: Record<string, unknown>;
}

/** A query's vector and the embedding tokens it cost (the provider's count, or ours when it sent none). */
export interface QueryEmbedding {
  vector: Float32Array;
  tokens: number;
  estimated: boolean;
}

/** Told before the embedding client retries a failed query embedding (the retry policy's one retry). */
export type OnQueryRetry = (e: { attempt: number; delay_ms: number; error: string }) => void;

/** Embeds a search query with the snapshot's embedding model. */
export type QueryEmbedder = (query: string, signal?: AbortSignal, onRetry?: OnQueryRetry) => Promise<QueryEmbedding>;

/** The pinned snapshot a request reads, plus how to embed a query for it. */
export interface ToolContext {
  snapshot: LoadedSnapshot;
  /** Embeds a search query with the snapshot's embedding model; absent for keyword-only snapshots. */
  embedQuery?: QueryEmbedder;
  /**
   * The host searches a snapshot that has vectors by keywords alone, and tells its caller so (the MCP
   * server without an embedding endpoint): search_blocks answers with mode `keyword_only` instead of
   * upstream_unavailable. Never set by the agent's harness, whose searches are hybrid or fail.
   */
  keywordOnly?: boolean;
  /** The documents a scoped question is limited to: a doc_id outside them is refused, list_documents lists only them. */
  scope?: readonly string[];
  signal?: AbortSignal;
  onTrace?: (e: ToolTraceEvent) => void;
}

/** What a step's words and counts read besides the input and output: the snapshot's titles, the question's scope. */
export interface StepView {
  snapshot: LoadedSnapshot;
  /** The documents a scoped question is limited to (ToolContext.scope). */
  questionScope?: readonly string[];
}

/** A step's scope as data, before its words are written. */
export type ScopeData = Omit<StepScope, 'words'>;
/** A result's counts, and why it is empty if it is. */
export type OutcomeData = StepCounts & { empty_reason: string | null };

/**
 * A tool's words over its step's data: pure, so a record stored before words were kept can be given them
 * (conversation-migration.ts) and every UI shows the same sentence.
 */
export interface StepWords {
  /** What the step looks at ("Scanning all 42 documents for “X”"). */
  scope(s: ScopeData): Words;
  /** What an admitted, successful (or empty) result found, and how the release tells it. */
  outcome(s: ScopeData, o: OutcomeData): Pick<StepOutcome, 'words' | 'checked' | 'covers' | 'tally'>;
}

/** The step record of a tool's result: what it looked at, what it found, and the blocks it returned. */
export interface StepSummary {
  scope: StepScope;
  /** kind `ok` or `empty`: the harness alone decides `error` and `not_admitted`. */
  outcome: StepOutcome;
  /** Blocks whose full text the result carries: citable once the result is admitted. */
  returned: BlockView[];
  /** Blocks it only located (a snippet): never citable. */
  located: string[];
  /** What a step list shows of the blocks it returned or located, in order. */
  briefs: BlockBrief[];
  /** The documents it lists (document lists and outlines). */
  doc_ids: string[];
}

/**
 * A tool, whole: its name and description for the model, its input and output schemas, its duplicate
 * key, how it runs, and how its steps are told. Nothing outside the tool's file reads its fields or
 * switches on its name: the harness, the replay, the trace and every UI go through these members.
 */
export interface Tool<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: ToolName;
  description: string;
  input: S;
  /** The fields of a successful result (the payload adds `token_estimate`; a failure is an ErrorPayload). */
  output: O;
  /**
   * The request's identity on a snapshot, for the harness's duplicate-scope check (information-gain seed
   * §6): two valid inputs give equal values exactly when the tool answers them with the same payload, so
   * it is computed by the same resolution `run` uses (and throws the same ToolFailure). Cheap: it never
   * runs the search or reads a text. `questionScope` is the run's ToolContext.scope, which `run` obeys too.
   */
  scope(input: z.infer<S>, snapshot: LoadedSnapshot, questionScope?: readonly string[]): unknown;
  run(input: z.infer<S>, ctx: ToolContext): Promise<z.infer<O>>;
  /**
   * What a request looks at, before it runs. `input` holds the fields its schema accepts (a refused
   * request is still shown), as given.
   */
  describe(input: Partial<z.infer<S>>, view: StepView): StepScope;
  /** The step record of a result. */
  summarize(input: Partial<z.infer<S>>, output: z.infer<O>, view: StepView): StepSummary;
  words: StepWords;
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
export function withEstimate(fields: object, snapshot?: LoadedSnapshot): ToolPayload {
  return { ...fields, token_estimate: estimateTokens(fields as Record<string, unknown>, snapshot) };
}

/** How many characters JSON.stringify escapes in `v` (`"`, `\\`, controls): each costs about a token more. */
function jsonEscapes(v: string): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) n++;
  }
  return n;
}

/** A string value's tokens as JSON writes it, without its quotes. */
function tokensOfValue(v: string): number {
  return countTokens(v) + jsonEscapes(v);
}

/** Token counts of numbers as JSON writes them (counts, pages): the same for every snapshot. */
const numberTokens = new Map<number, number>();
function tokensOfNumber(v: number): number {
  let n = numberTokens.get(v);
  if (n === undefined) numberTokens.set(v, (n = countTokens(String(v))));
  return n;
}

/**
 * Token estimate of a payload's JSON with the index tokenizer. Block texts are not counted again: each
 * block's exact count is already in the snapshot (a snippet takes its share by length). Block items are
 * counted field by field — their JSON shape once per shape, each other value once per snapshot — plus
 * one token per character JSON escapes and small margins for the seams, so the estimate stays at or a
 * little above the exact count (budget admission wants the safe side) and large payloads cost little.
 * That keeps the estimate at or a little above the exact count (budget admission wants the safe side)
 * and costs nothing per text, where counting a 2,000-block section afresh took most of a second.
 */
export function estimateTokens(fields: Record<string, unknown>, snapshot?: LoadedSnapshot): number {
  if (!snapshot) return countTokens(JSON.stringify(fields));
  const strings = stringTokens(snapshot);
  const tokensOf = (v: string) => {
    let n = strings.get(v);
    if (n === undefined) strings.set(v, (n = tokensOfValue(v)));
    return n;
  };
  let extra = 0;
  let lastKeys: string[] | null = null;
  let lastShape = 0;
  /** A block item is counted field by field (its shape once, each value on its own): no big JSON to tokenise. */
  const blockItem = (item: unknown): boolean => {
    if (!item || typeof item !== 'object' || typeof (item as { ref?: unknown }).ref !== 'string') return false;
    const o = item as Record<string, unknown>;
    const known = blockCounts(snapshot, o.ref as string);
    if (!known) return false;
    const keys = Object.keys(o);
    // The items of one payload share their keys: the previous item's shape is reused without a lookup.
    let shape: number;
    if (lastKeys && sameKeys(keys, lastKeys)) shape = lastShape;
    else {
      const sig = keys.join(',');
      let cached = shapes.get(sig);
      if (cached === undefined) {
        cached = countTokens(JSON.stringify(Object.fromEntries(keys.map((k) => [k, typeof o[k] === 'number' ? 0 : '']))));
        shapes.set(sig, cached);
      }
      shape = cached;
      lastKeys = keys;
      lastShape = shape;
    }
    extra += shape + 1;
    for (const k of keys) {
      const v = o[k];
      // A ref and a block id are one per block: kept with the block's counts, not in the value cache.
      if (k === 'ref') extra += (known.refTokens ??= tokensOfValue(o.ref as string)) + 1;
      else if (k === 'block_id' && v === known.blockId) extra += (known.idTokens ??= tokensOfValue(v)) + 1;
      else if (k === 'text' && typeof v === 'string') extra += known.tokens + 2 + jsonEscapes(v);
      // A snippet is a piece of its block: its share of the block's count, rounded up.
      else if (k === 'snippet' && typeof v === 'string') extra += Math.ceil((known.tokens * v.length) / Math.max(1, known.chars)) + 2 + jsonEscapes(v);
      else if (typeof v === 'string') extra += tokensOf(v) + 1;
      else if (typeof v === 'number') extra += tokensOfNumber(v);
      else extra += countTokens(JSON.stringify(v) ?? '');
    }
    return true;
  };
  const skeleton: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) skeleton[k] = Array.isArray(v) ? v.filter((item) => !blockItem(item)) : v;
  return countTokens(JSON.stringify(skeleton)) + extra;
}

const shapes = new Map<string, number>();

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
const stringsCache = new WeakMap<LoadedSnapshot, Map<string, number>>();
function stringTokens(s: LoadedSnapshot): Map<string, number> {
  let m = stringsCache.get(s);
  if (!m) stringsCache.set(s, (m = new Map()));
  return m;
}

/** A block's exact token count and length, and (filled on first use) its ref's and block id's tokens. */
interface BlockCounts {
  tokens: number;
  chars: number;
  blockId: string;
  refTokens?: number;
  idTokens?: number;
}
/** The counts of the block a ref names (null: no such block), worked out when first asked for, then kept. */
const blockCounts = byRef((_, b): BlockCounts => ({ tokens: b.token_count, chars: b.text.length, blockId: b.block_id }));

export function errorPayload(code: ToolErrorCode, message: string, retryable = false): ToolPayload {
  return withEstimate({ error: { code, message, retryable } });
}

/** A block as every tool shows it: citable ref, where it comes from, and its full text. */
export const BlockView = z.object({
  ref: z.string(),
  doc_id: z.string(),
  block_id: z.string(),
  doc_title: z.string(),
  source_label: z.string(),
  section_path: z.string(),
  text: z.string(),
});
export type BlockView = z.infer<typeof BlockView>;

export function blockView(snapshot: LoadedSnapshot, global: number): BlockView {
  // Located in the documents' ranges: blockRefs (a million pairs at 1M blocks) is made only for a tool that walks every block.
  const [d, b] = locateBlock(snapshot.docRanges, global);
  const doc = snapshot.documents[d]!;
  const block = doc.blocks[b]!;
  return { ref: `${doc.doc_id}#${block.block_id}`, doc_id: doc.doc_id, block_id: block.block_id, doc_title: doc.title, source_label: doc.source_label, section_path: block.section_path, text: block.text };
}

/** Unicode NFC then case folding (lower-casing), nothing else: what scan_term and title matching compare. */
export function fold(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

/**
 * Document index by doc_id; every id must exist, and lie inside the question's scope when it has one,
 * or the whole call fails with scope_not_found (nothing outside the scope is read).
 */
export function resolveDocs(snapshot: LoadedSnapshot, ids: readonly string[], scope?: readonly string[]): number[] {
  if (scope) {
    const inScope = new Set(scope);
    const outside = ids.filter((id) => !inScope.has(id));
    if (outside.length) throw new ToolFailure('scope_not_found', `doc_id ${outside.join(', ')} is outside this question's scope: the user limited it to doc_ids ${scope.join(', ')}; use those, or leave doc_ids out`);
  }
  const byId = docIndex(snapshot);
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) throw new ToolFailure('scope_not_found', `unknown doc_id: ${missing.join(', ')}; list_documents gives the valid ids`);
  return ids.map((id) => byId.get(id)!);
}

/**
 * The documents an optional `doc_ids` names, as the search tools read it: a set (sorted indices), or
 * `all` when absent or when it names every document; an unknown id fails the whole call, even on an
 * empty collection. A scoped question (ToolContext.scope) reads absent as its scope and refuses any id outside it.
 */
export function docSet(snapshot: LoadedSnapshot, ids: readonly string[] | undefined, scope?: readonly string[]): number[] | 'all' {
  const named = ids ?? scope;
  if (named === undefined) return 'all';
  const set = [...new Set(resolveDocs(snapshot, named, scope))].sort((a, b) => a - b);
  return set.length === snapshot.documents.length ? 'all' : set;
}
