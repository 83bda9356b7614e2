import { type SpanNode, spanTree } from './span-tree';
import type { Attributes, SpanRecord } from './trace-model';

/**
 * The trace viewer's span tree and duration waterfall as data: one row per span, in tree order, with
 * its depth, its place on the run's time axis, tokens, information-gain marks and budget arithmetic.
 * Pure, so it is unit-tested in plain Node and shared by the webview.
 */

/** An information-gain rating of a tool call: by the harness (an empty or refused result) or by the model (in its next request). */
export interface GainMark {
  value: string;
  by: 'harness' | 'model';
}

/** One inequality a budget decision checked: terms summed and compared with a limit (equality fits). */
export interface BudgetCheck {
  terms: Array<{ label: 'context' | 'result' | 'used' | 'reserve'; value: number }>;
  total: number;
  limit: { label: 'max_context_tokens' | 'max_request_tokens'; value: number };
  fits: boolean;
}

export interface SpanRow {
  id: string;
  parentId: string | null;
  depth: number;
  kind: SpanRecord['kind'];
  name: string;
  status: SpanRecord['status'];
  /** Milliseconds from the start of the earliest span. */
  startMs: number;
  durationMs: number;
  /** The bar on the waterfall, as fractions of the run's duration (0..1). */
  offset: number;
  width: number;
  tokens: { prompt: number | null; completion: number | null } | null;
  marks: GainMark[];
  budget: BudgetCheck[];
  /** What a budget decision decided (admitted, refused: reason, final_round, stop), or null. */
  decision: string | null;
  stopReason: string | null;
  /** The turn number of a turn span (for "show prompt of turn K"). */
  turn: number | null;
  toolCallId: string | null;
  childCount: number;
}

export interface SpanIndex {
  /** Rows in tree order (depth-first, children in start order). */
  rows: SpanRow[];
  byId: Map<string, SpanRow>;
  totalMs: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * Ratings per tool call id: the harness's `auto_information_gain` on the call itself, and the model's
 * `information_gain` carried by whichever later span (tool call or rejected request) rated it.
 */
export function gainMarks(spans: readonly SpanRecord[]): Map<string, GainMark[]> {
  const out = new Map<string, GainMark[]>();
  const add = (id: string, m: GainMark) => out.set(id, [...(out.get(id) ?? []), m]);
  for (const s of spans) {
    const a = s.attributes;
    if (s.kind === 'tool_call' && str(a.tool_call_id) && str(a.auto_information_gain)) add(a.tool_call_id as string, { value: a.auto_information_gain as string, by: 'harness' });
  }
  for (const s of [...spans].sort((x, y) => x.start_ms - y.start_ms)) {
    const a = s.attributes;
    if (str(a.rated_tool_call_id) && str(a.information_gain)) add(a.rated_tool_call_id as string, { value: a.information_gain as string, by: 'model' });
  }
  return out;
}

/** The inequalities behind a budget decision, from the numbers it recorded (admission, or before a model call). */
export function budgetChecks(a: Attributes): BudgetCheck[] {
  const reserve = num(a.reserve);
  const maxContext = num(a.max_context_tokens);
  const maxRequest = num(a.max_request_tokens);
  const used = num(a.used_request_tokens);
  if (reserve === null || maxContext === null || maxRequest === null || used === null) return [];
  const check = (terms: BudgetCheck['terms'], limit: BudgetCheck['limit']): BudgetCheck => {
    const total = terms.reduce((n, t) => n + t.value, 0);
    return { terms, total, limit, fits: total <= limit.value };
  };
  if (a.check === 'admission') {
    const context = num(a.context_tokens);
    const result = num(a.result_tokens);
    if (context === null || result === null) return [];
    return [
      check([{ label: 'context', value: context }, { label: 'result', value: result }, { label: 'reserve', value: reserve }], { label: 'max_context_tokens', value: maxContext }),
      check([{ label: 'used', value: used }, { label: 'context', value: context }, { label: 'result', value: result }, { label: 'reserve', value: reserve }], { label: 'max_request_tokens', value: maxRequest }),
    ];
  }
  const context = num(a.context_tokens);
  if (a.check !== 'before_model_call' || context === null) return [];
  return [
    check([{ label: 'context', value: context }, { label: 'reserve', value: reserve }], { label: 'max_context_tokens', value: maxContext }),
    check([{ label: 'used', value: used }, { label: 'context', value: context }, { label: 'reserve', value: reserve }], { label: 'max_request_tokens', value: maxRequest }),
  ];
}

function decisionOf(s: SpanRecord): string | null {
  if (s.kind !== 'budget_decision') return null;
  const a = s.attributes;
  if (a.check === 'admission') return a.admitted ? 'admitted' : `refused: ${String(a.reason)}`;
  return [str(a.decision), str(a.reason)].filter(Boolean).join(': ') || null;
}

function tokensOf(s: SpanRecord): SpanRow['tokens'] {
  if (s.kind !== 'llm_call' && s.kind !== 'request') return null;
  return { prompt: num(s.attributes.prompt_tokens), completion: num(s.attributes.completion_tokens) };
}

export function indexSpans(spans: readonly SpanRecord[]): SpanIndex {
  const t0 = spans.reduce((m, s) => Math.min(m, s.start_ms), Number.POSITIVE_INFINITY);
  const t1 = spans.reduce((m, s) => Math.max(m, s.end_ms), Number.NEGATIVE_INFINITY);
  const totalMs = spans.length ? Math.max(0, t1 - t0) : 0;
  const marks = gainMarks(spans);
  const rows: SpanRow[] = [];
  const byId = new Map<string, SpanRow>();
  // An explicit stack, not recursion: a deep or long trace must not overflow the webview's stack.
  const stack: Array<{ n: SpanNode; depth: number }> = spanTree(spans).reverse().map((n) => ({ n, depth: 0 }));
  while (stack.length) {
    const { n, depth } = stack.pop()!;
    const a = n.attributes;
    const startMs = n.start_ms - t0;
    const durationMs = Math.max(0, n.end_ms - n.start_ms);
    const toolCallId = n.kind === 'tool_call' ? str(a.tool_call_id) : null;
    const row: SpanRow = {
      id: n.span_id,
      parentId: n.parent_id,
      depth,
      kind: n.kind,
      name: n.name,
      status: n.status,
      startMs,
      durationMs,
      offset: totalMs > 0 ? startMs / totalMs : 0,
      width: totalMs > 0 ? durationMs / totalMs : 1,
      tokens: tokensOf(n),
      marks: toolCallId ? (marks.get(toolCallId) ?? []) : [],
      budget: n.kind === 'budget_decision' ? budgetChecks(a) : [],
      decision: decisionOf(n),
      stopReason: n.kind === 'request' || n.kind === 'release' || n.kind === 'rejected_request' ? str(a.stop_reason) : null,
      turn: n.kind === 'turn' ? num(a.turn) : null,
      toolCallId,
      childCount: n.children.length,
    };
    rows.push(row);
    byId.set(row.id, row);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push({ n: n.children[i]!, depth: depth + 1 });
  }
  return { rows, byId, totalMs };
}

/** The rows shown when the spans in `collapsed` hide their descendants. */
export function visibleRows(index: SpanIndex, collapsed: ReadonlySet<string>): SpanRow[] {
  if (collapsed.size === 0) return index.rows;
  const out: SpanRow[] = [];
  let hideBelow: number | null = null;
  for (const r of index.rows) {
    if (hideBelow !== null && r.depth > hideBelow) continue;
    hideBelow = null;
    out.push(r);
    if (collapsed.has(r.id) && r.childCount > 0) hideBelow = r.depth;
  }
  return out;
}

/** Which rows a windowed list renders: the visible ones plus `overscan` either side, and the space above and below them. */
export function rowWindow(count: number, scrollTop: number, viewportHeight: number, rowHeight: number, overscan = 8): { start: number; end: number; padTop: number; padBottom: number } {
  // A scroll position past the end (the list just got shorter: a span collapsed) shows the last rows, not none.
  const top = Math.max(0, Math.min(scrollTop, count * rowHeight - viewportHeight));
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((top + viewportHeight) / rowHeight) + overscan);
  const start = Math.min(first, count);
  const end = Math.max(start, last);
  return { start, end, padTop: start * rowHeight, padBottom: (count - end) * rowHeight };
}
