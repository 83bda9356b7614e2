import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetChecks, gainMarks, indexSpans, rowWindow, visibleRows } from '../../src/shared/span-rows';
import type { SpanRecord } from '../../src/shared/trace-model';

let n = 0;
const id = () => (++n).toString(16).padStart(16, '0');
function span(kind: SpanRecord['kind'], parent: SpanRecord | null, start: number, end: number, attributes: SpanRecord['attributes'] = {}, status: SpanRecord['status'] = 'ok'): SpanRecord {
  return { type: 'span', span_id: id(), parent_id: parent?.span_id ?? null, kind, name: kind, start_ms: 1000 + start, end_ms: 1000 + end, status, attributes };
}

/** A run as the harness writes it: two turns, a tool call with its admission, a model rating, a rejection, release. */
function run() {
  const request = span('request', null, 0, 100, { prompt_tokens: 900, completion_tokens: 80, stop_reason: 'INFORMATION_SATURATED' });
  const turn1 = span('turn', request, 0, 40, { turn: 1 });
  const llm1 = span('llm_call', turn1, 0, 20, { prompt_tokens: 400, completion_tokens: 30 });
  const tool = span('tool_call', turn1, 20, 40, { tool: 'search_blocks', tool_call_id: 'call-1', auto_information_gain: 'NO_GAIN' });
  const admission = span('budget_decision', tool, 35, 40, { check: 'admission', admitted: false, reason: 'context_budget_exceeded', result_tokens: 600, context_tokens: 500, context_tokens_with_result: 1100, used_request_tokens: 430, reserve: 100, max_context_tokens: 1000, max_request_tokens: 5000 }, 'error');
  const turn2 = span('turn', request, 40, 90, { turn: 2 });
  const llm2 = span('llm_call', turn2, 40, 80, { prompt_tokens: 500, completion_tokens: 50 });
  const rejected = span('rejected_request', turn2, 80, 90, { reason: 'duplicate_scope', rated_tool_call_id: 'call-1', information_gain: 'GAINED', stop_reason: null }, 'error');
  const release = span('release', request, 90, 100, { status: 'SUCCESS', stop_reason: 'INFORMATION_SATURATED' });
  // On disk children come before their parents (they end first): the order given must not matter.
  return { all: [llm1, admission, tool, turn1, llm2, rejected, turn2, release, request], request, turn1, tool, admission, turn2, rejected };
}

describe('the span tree and waterfall model', () => {
  it('lists spans depth-first in start order with depth, waterfall place, tokens, turn and stop reason', () => {
    const r = run();
    const index = indexSpans(r.all);
    assert.deepEqual(index.rows.map((x) => `${'  '.repeat(x.depth)}${x.kind}`), ['request', '  turn', '    llm_call', '    tool_call', '      budget_decision', '  turn', '    llm_call', '    rejected_request', '  release']);
    assert.equal(index.totalMs, 100);
    const tool = index.byId.get(r.tool.span_id)!;
    assert.deepEqual([tool.offset, tool.width, tool.startMs, tool.durationMs], [0.2, 0.2, 20, 20]);
    assert.deepEqual(index.rows[0]!.tokens, { prompt: 900, completion: 80 });
    assert.equal(index.rows[0]!.stopReason, 'INFORMATION_SATURATED');
    assert.deepEqual(index.rows.filter((x) => x.turn !== null).map((x) => x.turn), [1, 2]);
    assert.equal(tool.toolCallId, 'call-1');
    assert.equal(index.rows[0]!.childCount, 3);
  });

  it('marks a tool call with the harness’s and the model’s information-gain ratings, each saying who decided', () => {
    const r = run();
    assert.deepEqual(gainMarks(r.all).get('call-1'), [
      { value: 'NO_GAIN', by: 'harness' },
      { value: 'GAINED', by: 'model' },
    ]);
    assert.deepEqual(indexSpans(r.all).byId.get(r.tool.span_id)!.marks.map((m) => m.by), ['harness', 'model']);
  });

  it('shows a budget decision’s arithmetic: a refused admission exceeds the context budget, fits the request budget', () => {
    const r = run();
    const row = indexSpans(r.all).byId.get(r.admission.span_id)!;
    assert.equal(row.decision, 'refused: context_budget_exceeded');
    assert.deepEqual(
      row.budget.map((c) => [c.terms.map((t) => `${t.label}=${t.value}`).join('+'), c.total, c.limit.label, c.limit.value, c.fits]),
      [
        ['context=500+result=600+reserve=100', 1200, 'max_context_tokens', 1000, false],
        ['used=430+context=500+result=600+reserve=100', 1630, 'max_request_tokens', 5000, true],
      ],
    );
    // Before a model call: context + reserve, and used + context + reserve; equality fits.
    const before = budgetChecks({ check: 'before_model_call', context_tokens: 900, used_request_tokens: 0, reserve: 100, max_context_tokens: 1000, max_request_tokens: 1000, decision: 'final_round' });
    assert.deepEqual(before.map((c) => [c.total, c.fits]), [[1000, true], [1000, true]]);
    assert.deepEqual(budgetChecks({ check: 'before_retry', decision: 'stop', used_request_tokens: 5 }), [], 'no arithmetic without its numbers');
  });

  it('hides the descendants of collapsed spans, and a span whose parent was lost becomes a root', () => {
    const r = run();
    const index = indexSpans(r.all);
    assert.deepEqual(visibleRows(index, new Set([r.turn1.span_id])).map((x) => x.kind), ['request', 'turn', 'turn', 'llm_call', 'rejected_request', 'release']);
    assert.deepEqual(visibleRows(index, new Set([r.request.span_id])).map((x) => x.kind), ['request']);
    const orphan = indexSpans(r.all.filter((s) => s !== r.turn2));
    assert.deepEqual(orphan.rows.filter((x) => x.depth === 0).map((x) => x.kind), ['request', 'llm_call', 'rejected_request']);
    assert.deepEqual(indexSpans([]).rows, []);
  });

  it('builds 10,000 nested spans without recursion limits and windows them to what is in view', () => {
    const spans: SpanRecord[] = [];
    let parent: SpanRecord | null = null;
    for (let i = 0; i < 10_000; i++) spans.push((parent = span('turn', parent, i, 20_000 - i)));
    const index = indexSpans(spans);
    assert.equal(index.rows.length, 10_000);
    assert.equal(index.rows[9_999]!.depth, 9_999);
    assert.deepEqual(rowWindow(1000, 0, 240, 24), { start: 0, end: 18, padTop: 0, padBottom: 982 * 24 });
    assert.deepEqual(rowWindow(1000, 24 * 500, 240, 24, 0), { start: 500, end: 510, padTop: 500 * 24, padBottom: 490 * 24 });
    assert.deepEqual(rowWindow(5, 1000, 240, 24), { start: 0, end: 5, padTop: 0, padBottom: 0 });
    assert.deepEqual(rowWindow(0, 0, 240, 24), { start: 0, end: 0, padTop: 0, padBottom: 0 });
  });
});
