import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { Budgets } from '../../src/harness/budget';
import { type AgentSetup, act, lastObservation, recordingTracer, useAgentSetup } from './agent-setup';

/**
 * Clauses of the harness's contract (information-gain seed §3, §8–§10; quality seed §1.3, §10.2,
 * Appendix A) that the happy path never exercises, each driven through the fake model server over real
 * HTTP. Every test is named after what broke before it was fixed.
 */
describe('the harness keeps every clause of its contract', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  beforeEach(() => {
    t = setup();
    t.server.resetScript();
  });

  const q = 'What is a cell?';
  const search = act('search_blocks', { query: 'cell' });
  const finish = 'Thought: enough.\nAction: Finish[Cells are the basic unit of life.]';
  const reserve = 300;

  /** The tokens the first search's turn used, and its prompt with the result admitted. */
  async function probe(): Promise<{ used: number; withResult: number }> {
    const rec = recordingTracer();
    t.server.scriptChat(search, finish);
    await t.run(q, { budgets: Budgets.parse({ finalization_reserve_tokens: reserve }), tracer: rec.tracer });
    const a = rec.spans('budget_decision').find((s) => s.attributes.check === 'admission')!.attributes;
    return { used: a.used_request_tokens as number, withResult: a.context_tokens_with_result as number };
  }

  /** A budget one token short of admitting the first search's result: the run goes to its final round after it. */
  async function finalRoundBudget(): Promise<Budgets> {
    const p = await probe();
    return Budgets.parse({ max_request_tokens: p.used + p.withResult + reserve - 1, finalization_reserve_tokens: reserve });
  }

  it('a 429 in the final round was not retried ("the request budget cannot pay another call", though the failed attempt cost nothing): now it is retried once and the answer released', async () => {
    const budgets = await finalRoundBudget();
    const rec = recordingTracer();
    // The first turn's script queues the fault for the next request, the final round's call.
    t.server.scriptChat((body) => {
      t.server.inject('/v1/chat/completions', { kind: 'rate_limit', retryAfterSeconds: 0 });
      void body;
      return search;
    }, finish);
    const r = await t.run(q, { budgets, tracer: rec.tracer });
    assert.deepEqual([r.release.status, r.stop_reason, r.answer], ['SUCCESS', 'BUDGET_LIMIT_REACHED', 'Cells are the basic unit of life.']);
    assert.deepEqual([r.counts.model_calls, r.ledger.retries], [3, 1]);
    const calls = rec.spans('llm_call');
    assert.deepEqual(calls.map((c) => [c.name, c.status]), [['llm_call', 'ok'], ['llm_call', 'error'], ['llm_call (retry)', 'ok']]);
    assert.equal(rec.spans('budget_decision').filter((s) => s.name === 'retry refused').length, 0);
  });

  it('a retry that the budget really cannot pay says why in numbers, not that "the request budget cannot pay another call"', async () => {
    const p = await probe();
    // The final round's prompt size, from a run that reaches it.
    const sized = recordingTracer();
    t.server.scriptChat(search, finish);
    await t.run(q, { tracer: sized.tracer, budgets: await finalRoundBudget() });
    const finalContext = sized.spans('turn').find((s) => s.attributes.final_round === true)!.attributes.context_tokens as number;
    // One token to spare for the final round; its stream is cut after that token, which is paid with the
    // prompt: what is left cannot pay the prompt again.
    t.server.scriptChat((body) => {
      t.server.inject('/v1/chat/completions', { kind: 'truncated_stream' });
      void body;
      return search;
    }, finish);
    const rec = recordingTracer();
    const r = await t.run(q, { budgets: Budgets.parse({ max_request_tokens: p.used + finalContext + 1, finalization_reserve_tokens: reserve }), tracer: rec.tracer });
    assert.deepEqual([r.release.status, r.release.reason, r.stop_reason], ['FAILED', 'MODEL_TRUNCATED', 'BUDGET_LIMIT_REACHED']);
    assert.match(r.release.detail!, /It was not retried: after this attempt the request budget \(max_request_tokens \d+\) has \d+ tokens? left, and the call's prompt alone is \d+ tokens\.$/);
    const refused = rec.spans('budget_decision').find((s) => s.name === 'retry refused')!;
    assert.equal(refused.attributes.reason, 'request_budget_exceeded');
  });

  it('the stop reason was lost when the final round failed (release and span said stop_reason null): the trace now says the request budget ended the run', async () => {
    const budgets = await finalRoundBudget();
    t.server.scriptChat((body) => {
      // Not retryable: the final round fails for good.
      t.server.inject('/v1/chat/completions', { kind: 'unauthorized' });
      void body;
      return search;
    });
    const rec = recordingTracer();
    const r = await t.run(q, { budgets, tracer: rec.tracer });
    assert.deepEqual([r.release.status, r.release.reason, r.stop_reason, r.progress.stop_reason], ['FAILED', 'MODEL_AUTH', 'BUDGET_LIMIT_REACHED', 'BUDGET_LIMIT_REACHED']);
    assert.equal(rec.spans('release')[0]!.attributes.stop_reason, 'BUDGET_LIMIT_REACHED');
    assert.equal(rec.spans('request')[0]!.attributes.stop_reason, 'BUDGET_LIMIT_REACHED');
  });

  it('two correctable business errors saturated the run as INFORMATION_SATURATED ("further searches added nothing"): they are no NO_GAIN, the run goes on', async () => {
    const cells = t.snap.documents.find((d) => d.title === 'Cell Biology Notes')!.doc_id;
    let third = '';
    t.server.scriptChat(
      act('list_blocks', { doc_id: ` ${cells}` }),
      (body) => {
        assert.equal(lastObservation(body).payload?.error?.code, 'scope_not_found');
        return act('list_blocks', { doc_id: cells, section_paths: ['No Such Section'] });
      },
      (body) => {
        assert.equal(lastObservation(body).payload?.error?.code, 'scope_not_found');
        return act('search_blocks', { query: 'cell membrane' });
      },
      (body) => {
        third = lastObservation(body).harness_status;
        return act('scan_term', { term: 'membrane' }, { id: 'call-3', gain: 'GAINED' });
      },
      finish,
    );
    const r = await t.run(q);
    assert.equal(third, 'ok', 'the third request ran: no STOP_REQUIRED after two business errors');
    assert.deepEqual([r.release.status, r.stop_reason], ['SUCCESS', null]);
    // Business errors still count as tool calls.
    assert.deepEqual([r.counts.tool_calls, r.counts.rejected_requests], [4, 0]);
  });

  it('a tool outside the whitelist was a protocol_error and two of them ended the run as PROGRESS_PROTOCOL_VIOLATED: it is tool_unavailable and no violation', async () => {
    const statuses: string[] = [];
    const note = (body: Record<string, unknown>) => statuses.push(lastObservation(body).harness_status);
    t.server.scriptChat(
      act('web_search', { query: 'cell' }),
      (body) => {
        note(body);
        return act('scan_term', { term: 'cell' });
      },
      (body) => {
        note(body);
        return act('search_blocks', { query: 'cell' });
      },
      (body) => {
        note(body);
        return finish;
      },
    );
    const rec = recordingTracer();
    const r = await t.run(q, { tools: ['search_blocks', 'list_blocks'], tracer: rec.tracer });
    assert.deepEqual(statuses, ['tool_unavailable', 'tool_unavailable', 'ok']);
    assert.deepEqual([r.release.status, r.stop_reason], ['SUCCESS', null]);
    const rejected = rec.spans('rejected_request');
    assert.deepEqual(rejected.map((s) => [s.attributes.tool, s.attributes.reason]), [['web_search', 'tool_unavailable'], ['scan_term', 'tool_unavailable']]);
    assert.ok(rejected.every((s) => s.attributes.violation === undefined));
    assert.equal(r.counts.rejected_requests, 2);
  });

  it('on an empty collection an unknown doc_id was collection_empty for search_blocks and scan_term: the whole call fails with scope_not_found', async () => {
    const empty = await t.empty();
    const seen: Array<[string | undefined, string | undefined]> = [];
    const note = (body: Record<string, unknown>) => {
      const p = lastObservation(body).payload as { error?: { code: string }; empty_reason?: string } | null;
      seen.push([p?.error?.code, p?.empty_reason]);
    };
    t.server.scriptChat(
      act('search_blocks', { query: 'cell', doc_ids: ['dnope'] }),
      (body) => {
        note(body);
        return act('scan_term', { term: 'cell', doc_ids: ['dnope'] });
      },
      (body) => {
        note(body);
        return act('search_blocks', { query: 'cell' });
      },
      (body) => {
        note(body);
        return 'Thought: nothing here.\nAction: Finish[The collection is empty.]';
      },
    );
    await t.run(q, { snapshot: empty });
    assert.deepEqual(seen, [
      ['scope_not_found', undefined],
      ['scope_not_found', undefined],
      [undefined, 'collection_empty'],
    ]);
  });

  it('a clarification after checks that returned verified results was MISSING_REQUIRED_CONTEXT: it is INSUFFICIENT_EVIDENCE with what was checked', async () => {
    t.server.scriptChat(search, 'Thought: which kind?\nAction: Finish[CLARIFY: Plant cells or animal cells?]');
    const r = await t.run(q);
    assert.deepEqual([r.release.status, r.release.reason], ['FALLBACK', 'INSUFFICIENT_EVIDENCE']);
    assert.match(r.answer!, /^Plant cells or animal cells\?\n\nChecked in this run:\n- Searching all 5 documents for “cell”: \d blocks?$/);
    // Nothing verified: a clarification is still MISSING_REQUIRED_CONTEXT.
    t.server.scriptChat('Thought: which kind?\nAction: Finish[CLARIFY: Plant cells or animal cells?]');
    const bare = await t.run(q);
    assert.deepEqual([bare.release.status, bare.release.reason, bare.answer], ['FALLBACK', 'MISSING_REQUIRED_CONTEXT', 'Plant cells or animal cells?']);
  });

  it('the fact lines appended to a Chinese answer were in English (the prompt bundle’s language): they follow the question', async () => {
    t.server.scriptChat(act('scan_term', { term: 'cell' }), 'Thought: 需要确认。\nAction: Finish[需要澄清：你指的是植物细胞还是动物细胞？]');
    const r = await t.run('细胞是什么？', { bundle: t.bundle, lang: 'en' });
    assert.equal(r.release.reason, 'INSUFFICIENT_EVIDENCE');
    assert.match(r.answer!, /^你指的是植物细胞还是动物细胞？\n\n本次已核查：\n- 在全部 5 篇文档中逐字扫描“cell”：\d+ 个块中 \d+ 处命中$/);
    // A fallback the harness writes alone follows the question too.
    t.server.scriptChat(act('scan_term', { term: 'zzqxj' }), act('scan_term', { term: 'ZZQXJ' }), act('scan_term', { term: 'wwwxj' }));
    const f = await t.run('笔记里提到 zzqxj 了吗？', { bundle: t.bundle, lang: 'en' });
    assert.match(f.answer!, /^未能形成完整回答（证据不足：继续检索不再带来新信息）。本次已核查：/);
  });
});
