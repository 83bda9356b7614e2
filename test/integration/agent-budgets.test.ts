import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { Budgets } from '../../src/harness/budget';
import type { AgentEvent } from '../../src/shared/run-result';
import { type TurnStep, recordStep } from '../../src/shared/turn-steps';
import { type AgentSetup, act, useAgentSetup, lastObservation, recordingTracer, systemOf } from './agent-setup';

/**
 * Budget arithmetic at its edges, over real HTTP: every number is read from the run's own spans and the
 * fake server's usage (deterministic: tokens = ceil(characters / 4)), then a budget is set exactly at
 * the edge and one token past it.
 */
describe('agent budgets at the edges', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  beforeEach(() => {
    t = setup();
  });

  const q = 'What is a cell?';
  const search = act('search_blocks', { query: 'cell' });
  const finish = 'Thought: enough.\nAction: Finish[Cells are the basic unit of life.]';
  const reserve = 300;

  /** One search then Finish; the admission's numbers and the first call's usage as the server billed it. */
  async function probe(budgets = Budgets.parse({ finalization_reserve_tokens: reserve })) {
    const rec = recordingTracer();
    const start = t.server.requests.length;
    t.server.scriptChat(search, finish);
    const r = await t.run(q, { budgets, tracer: rec.tracer });
    const admission = rec.spans('budget_decision').find((s) => s.attributes.check === 'admission')!.attributes;
    const body1 = t.server.requests[start]!.body;
    const billed1 = Math.ceil(JSON.stringify(body1.messages).length / 4) + Math.ceil(search.length / 4);
    return { r, rec, used: admission.used_request_tokens as number, withResult: admission.context_tokens_with_result as number, billed1 };
  }

  it('admission counts the turn that asked (the stale-zero bug): a result that fits the request budget exactly is admitted, one token over goes to the final round', async () => {
    const p = await probe();
    // Before the fix the admission read 0 here: the turn's own 20,010 tokens were not counted yet.
    assert.equal(p.used, p.billed1);
    assert.equal(p.r.release.status, 'SUCCESS');

    const exact = Budgets.parse({ max_request_tokens: p.used + p.withResult + reserve, finalization_reserve_tokens: reserve });
    let status = '';
    t.server.scriptChat(search, (body) => {
      status = lastObservation(body).harness_status;
      return finish;
    });
    const fits = await t.run(q, { budgets: exact });
    assert.deepEqual([status, fits.release.status, fits.stop_reason], ['ok', 'SUCCESS', null]);

    const over = Budgets.parse({ max_request_tokens: p.used + p.withResult + reserve - 1, finalization_reserve_tokens: reserve });
    const rec = recordingTracer();
    const start = t.server.requests.length;
    t.server.scriptChat(search, (body) => {
      status = lastObservation(body).harness_status;
      return finish;
    });
    const r = await t.run(q, { budgets: over, tracer: rec.tracer });
    assert.equal(status, 'request_budget_exceeded');
    assert.deepEqual([r.release.status, r.stop_reason, r.answer], ['SUCCESS', 'BUDGET_LIMIT_REACHED', 'Cells are the basic unit of life.']);
    // The final round's prompt offers no tools and no tool-call form, and its output is capped at what is left.
    const body = t.server.requests[start + 1]!.body;
    const system = systemOf(body);
    assert.ok(!system.includes('<tools>') && !system.includes('tool_name[') && !system.includes('search_blocks:'), 'no tools in the final round');
    assert.match(system, /no tool can run any more/);
    assert.match(system, /Action: Finish\[final answer\]/);
    const finalTurn = rec.spans('turn').find((s) => s.attributes.final_round === true)!.attributes;
    assert.equal(finalTurn.max_output_tokens, over.max_request_tokens - p.used - (finalTurn.context_tokens as number));
    assert.equal(body.max_tokens, Math.min(4096, finalTurn.max_output_tokens as number));
  });

  it('the context budget: a result that fits exactly is admitted; one token over is refused and the run goes on with tools', async () => {
    const p = await probe();
    let status = '';
    t.server.scriptChat(search, (body) => {
      status = lastObservation(body).harness_status;
      return finish;
    });
    await t.run(q, { budgets: Budgets.parse({ max_context_tokens: p.withResult + reserve, finalization_reserve_tokens: reserve }) });
    assert.equal(status, 'ok');
    let tools = false;
    t.server.scriptChat(search, (body) => {
      status = lastObservation(body).harness_status;
      tools = systemOf(body).includes('<tools>');
      return finish;
    });
    const r = await t.run(q, { budgets: Budgets.parse({ max_context_tokens: p.withResult + reserve - 1, finalization_reserve_tokens: reserve }) });
    assert.deepEqual([status, tools, r.release.status, r.stop_reason], ['context_budget_exceeded', true, 'SUCCESS', null]);
  });

  it('a refused result is one step record: the span keeps the refs the tool returned (the replay compares them), the stored step shows no block and says why', async () => {
    const p = await probe();
    const rec = recordingTracer();
    const events: AgentEvent[] = [];
    t.server.scriptChat(search, finish);
    await t.run(q, { tracer: rec.tracer, onEvent: (e) => events.push(e), budgets: Budgets.parse({ max_context_tokens: p.withResult + reserve - 1, finalization_reserve_tokens: reserve }) });
    const span = rec.spans('tool_call')[0]!.attributes;
    const result = events.find((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result')!;
    assert.equal(result.outcome.kind, 'not_admitted');
    assert.ok((span.refs as string[]).length > 0, 'the search returned blocks');
    assert.deepEqual(result.blocks.map((b) => b.ref), span.refs, 'the event carries the record the span was written from');
    const [stored] = events.reduce<TurnStep[]>(recordStep, []);
    assert.deepEqual([stored!.outcome?.kind, stored!.blocks], ['not_admitted', []]);
    assert.equal(span.result_count, (span.refs as string[]).length);
  });

  it('a retried call’s tokens count: the cut-off attempt is paid, so the budget that fit without it now sends the run to the final round', async () => {
    const p = await probe();
    const rec = recordingTracer();
    // The first attempt's stream is cut (no usage, half the text arrived): the harness retries.
    t.server.inject('/v1/chat/completions', { kind: 'truncated_stream' });
    t.server.scriptChat(search, search, finish);
    const start = t.server.requests.length;
    await t.run(q, { tracer: rec.tracer, budgets: Budgets.parse({ finalization_reserve_tokens: reserve }) });
    const calls = rec.spans('llm_call');
    const cut = calls[0]!.attributes.attempt_tokens_estimate as number;
    assert.ok(cut > 0, 'the cut attempt was paid');
    const admission = rec.spans('budget_decision').find((s) => s.attributes.check === 'admission')!.attributes;
    const billed2 = Math.ceil(JSON.stringify(t.server.requests[start + 1]!.body.messages).length / 4) + Math.ceil(search.length / 4);
    assert.equal(admission.used_request_tokens, cut + billed2);
    assert.equal(rec.spans('retry').length, 1);

    // The budget that admitted the result exactly without the cut attempt refuses it now; the final round
    // cannot be paid either (the cut attempt cost a whole prompt), so the run stops without another call.
    const again = recordingTracer();
    t.server.inject('/v1/chat/completions', { kind: 'truncated_stream' });
    t.server.scriptChat(search, search);
    const r = await t.run(q, { tracer: again.tracer, budgets: Budgets.parse({ max_request_tokens: p.used + p.withResult + reserve, finalization_reserve_tokens: reserve }) });
    const refused = again.spans('budget_decision').find((s) => s.attributes.check === 'admission')!.attributes;
    assert.deepEqual([refused.admitted, refused.reason], [false, 'request_budget_exceeded']);
    assert.deepEqual([r.release.status, r.release.reason, r.stop_reason, r.counts.model_calls], ['FAILED', 'REQUEST_BUDGET_EXCEEDED', 'BUDGET_LIMIT_REACHED', 2]);
  });

  it('the final round fits with one token to spare, and not with none: then no call is made and nothing is invented', async () => {
    const p = await probe();
    // The final round's prompt size, from a run that reaches it.
    const rec = recordingTracer();
    t.server.scriptChat(search, finish);
    await t.run(q, { tracer: rec.tracer, budgets: Budgets.parse({ max_request_tokens: p.used + p.withResult + reserve - 1, finalization_reserve_tokens: reserve }) });
    const finalContext = rec.spans('turn').find((s) => s.attributes.final_round === true)!.attributes.context_tokens as number;

    const start = t.server.requests.length;
    t.server.scriptChat(search, finish);
    const one = await t.run(q, { budgets: Budgets.parse({ max_request_tokens: p.used + finalContext + 1, finalization_reserve_tokens: reserve }) });
    assert.equal(t.server.requests.length - start, 2, 'the final call was made');
    assert.equal(t.server.requests[start + 1]!.body.max_tokens, 1);
    // One output token cannot close a Finish: the cut answer is no answer, and nothing is invented.
    assert.deepEqual([one.release.status, one.release.reason, one.answer], ['FAILED', 'PROTOCOL_ERROR_IN_FINAL_ROUND', null]);

    const before = t.server.requests.length;
    t.server.scriptChat(search);
    const none = await t.run(q, { budgets: Budgets.parse({ max_request_tokens: p.used + finalContext, finalization_reserve_tokens: reserve }) });
    assert.equal(t.server.requests.length - before, 1, 'no final call');
    assert.deepEqual([none.release.status, none.release.reason, none.stop_reason, none.answer], ['FAILED', 'REQUEST_BUDGET_EXCEEDED', 'BUDGET_LIMIT_REACHED', null]);
  });

  it('a tool Action in the final round ends the run: fail closed with nothing verified; a fallback from what was verified otherwise', async () => {
    const p = await probe();
    t.server.scriptChat(search, act('search_blocks', { query: 'organelle' }));
    const bad = await t.run(q, { budgets: Budgets.parse({ max_request_tokens: p.used + p.withResult + reserve - 1, finalization_reserve_tokens: reserve }) });
    assert.deepEqual([bad.release.status, bad.release.reason, bad.counts.tool_calls, bad.counts.rejected_requests], ['FAILED', 'TOOL_REQUESTED_IN_FINAL_ROUND', 1, 1]);

    // Two searches: the first admitted exactly, the second refused; the final round asks for a tool again.
    const two = recordingTracer();
    const second = act('search_blocks', { query: 'nucleus membrane' }, { id: 'call-1', gain: 'GAINED' });
    t.server.scriptChat(search, second, finish);
    await t.run(q, { tracer: two.tracer, budgets: Budgets.parse({ finalization_reserve_tokens: reserve }) });
    const first = two.spans('budget_decision').find((s) => s.attributes.check === 'admission')!.attributes;
    t.server.scriptChat(search, second, act('scan_term', { term: 'cell' }));
    const r = await t.run(q, { budgets: Budgets.parse({ max_request_tokens: (first.used_request_tokens as number) + (first.context_tokens_with_result as number) + reserve, finalization_reserve_tokens: reserve }) });
    assert.deepEqual([r.release.status, r.release.reason, r.stop_reason], ['FALLBACK', 'INSUFFICIENT_EVIDENCE', 'BUDGET_LIMIT_REACHED']);
    assert.match(r.answer!, /Checked in this run:\n- Searching all 5 documents for “cell”: \d+ blocks?\nSources consulted: .+\nNot checked:\n- Searching all 5 documents for “nucleus membrane”: not added: the result \(\d+ tokens\) did not fit the request budget$/);
    assert.deepEqual(r.progress.facts.map((f) => f.tool_call_id), ['call-1']);
    assert.deepEqual(r.progress.limitations.map((l) => [l.kind, l.tool_call_id]), [['not_admitted', 'call-2']]);
  });
});
