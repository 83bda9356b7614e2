import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { AgentEvent } from '../../src/harness/agent-loop';
import { Budgets } from '../../src/harness/budget';
import { renderPrompt } from '../../src/harness/prompt-bundle';
import { collectionStatusText as statusText, toolsPromptText } from '../../src/harness/agent-loop';
import { countTokens } from '../../src/common/tokenizer';
import { queryEmbedderFor } from '../../src/tools/query-embedder';
import type { TraceRecord } from '../../src/shared/trace-model';
import { Tracer } from '../../src/trace/tracer';
import { type AgentSetup, act, useAgentSetup, lastObservation } from './agent-setup';

describe('agent loop over real HTTP against a scripted model', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  beforeEach(() => {
    t = setup();
  });
  const run: AgentSetup['run'] = (q, extra) => t.run(q, extra);

  it('search, then Finish: a returned block is cited and resolved, a fabricated citation is removed', async () => {
    t.server.scriptChat(act('search_blocks', { query: 'Calvin cycle sugar' }), (body) => {
      const ref = lastObservation(body).payload!.blocks![0]!.ref;
      return `Thought: enough.\nAction: Finish[The Calvin cycle builds sugar【来源:${ref}】 and is ancient【来源:dfake#b00000000】.]`;
    });
    const events: AgentEvent[] = [];
    const r = await run('What does the Calvin cycle do?', { onEvent: (e) => events.push(e) });
    assert.equal(r.release.status, 'SUCCESS');
    assert.match(r.answer!, /builds sugar【来源:d[0-9a-f]+#b[0-9a-f]+】 and is ancient\.$/);
    assert.deepEqual(r.removed_citations, [{ ref: 'dfake#b00000000', reason: 'not_returned' }]);
    assert.equal(r.citations.length, 1);
    assert.match(r.citations[0]!.section_path, /Calvin Cycle/);
    assert.deepEqual(r.counts, { agent_turns: 2, tool_calls: 1, model_calls: 2, rejected_requests: 0 });
    assert.ok(r.tokens.prompt > 0 && r.tokens.completion > 0);
    assert.deepEqual(events.filter((e) => e.type !== 'model_delta' && e.type !== 'answer_delta' && e.type !== 'ledger').map((e) => e.type), ['turn_started', 'tool_requested', 'tool_result', 'turn_started', 'citations', 'release']);
    // The answer streams as it is written (without the Finish bracket); the release carries the checked answer.
    const streamed = events.flatMap((e) => (e.type === 'answer_delta' ? [e.text] : [])).join('');
    assert.match(streamed, /^The Calvin cycle builds sugar【来源:d[0-9a-f]+#b[0-9a-f]+】 and is ancient【来源:dfake#b00000000】\.$/);
    assert.equal((events.at(-1) as Extract<AgentEvent, { type: 'release' }>).result.answer, r.answer);
  });

  it('a duplicate scope never reaches the tool; empty results count NO_GAIN automatically; saturation gives STOP_REQUIRED once, then a tool request ends the run with a fallback from verified progress', async () => {
    t.server.scriptChat(
      act('scan_term', { term: 'zzqxj' }),
      act('scan_term', { term: ' zzqxj ' }),
      (body) => {
        assert.equal(lastObservation(body).harness_status, 'stop_required');
        return act('scan_term', { term: 'another' });
      },
    );
    const r = await run('Is zzqxj mentioned?', { thresholds: { no_gain: 2 } });
    // Every rejected request is counted, as the trace records it: the repeat (answered STOP_REQUIRED) and the request after it.
    assert.deepEqual(r.counts, { agent_turns: 3, tool_calls: 1, model_calls: 3, rejected_requests: 2 });
    assert.equal(r.stop_reason, 'INFORMATION_SATURATED');
    assert.deepEqual([r.release.status, r.release.reason], ['FALLBACK', 'INSUFFICIENT_EVIDENCE']);
    assert.match(r.answer!, /^No complete answer could be formed \(insufficient evidence: further searches added nothing new\)\. Checked in this run:\n- Scanning all 5 documents for “zzqxj”: 0 hits$/);
  });

  it('a non-empty result must be rated; GAINED resets; a missing rating is a protocol error naming the expected id', async () => {
    t.server.scriptChat(
      act('scan_term', { term: 'cell' }),
      (body) => {
        assert.equal(lastObservation(body).tool_call_id, 'call-1');
        return act('scan_term', { term: 'nucleus' });
      },
      (body) => {
        const o = lastObservation(body) as unknown as { harness_status: string; message: string };
        assert.equal(o.harness_status, 'protocol_error');
        assert.match(o.message, /missing_evaluation.*call-1.*GAINED \| NO_GAIN/);
        return act('scan_term', { term: 'nucleus' }, { id: 'call-1', gain: 'GAINED' });
      },
      'Thought: done.\nAction: Finish[Cells have nuclei.]',
    );
    const r = await run('Do cells have nuclei?');
    assert.equal(r.release.status, 'SUCCESS');
    assert.deepEqual(r.counts, { agent_turns: 4, tool_calls: 2, model_calls: 4, rejected_requests: 1 });
  });

  it('consecutive protocol violations stop at the threshold: STOP_REQUIRED once, then the run ends, failing closed with nothing verified', async () => {
    t.server.scriptChat('I think the answer is 42.', 'Still no action.', 'Action without thought', 'more', 'more', 'more', 'more', 'more', 'more');
    const r = await run('Anything?', { thresholds: { violations: 2 } });
    assert.equal(r.stop_reason, 'PROGRESS_PROTOCOL_VIOLATED');
    assert.deepEqual([r.release.status, r.release.reason], ['FAILED', 'PROGRESS_PROTOCOL_VIOLATED']);
    assert.equal(r.answer, null);
    assert.deepEqual(r.counts, { agent_turns: 3, tool_calls: 0, model_calls: 3, rejected_requests: 3 });
    // Consume what this run did not ask for, so later tests start clean.
    (t.server as unknown as { chatScript: unknown[] }).chatScript.length = 0;
  });

  /** Tokens of the first prompt of a run, as the harness counts them. */
  const firstContext = (question: string) => countTokens(renderPrompt(t.bundle, { tools: toolsPromptText(), collection_status: statusText(t.snap), question, history: '' })) + countTokens(question);

  it('a result that does not fit the context budget is not appended, and the model is told so', async () => {
    const q = 'List everything about computed properties';
    const small = Budgets.parse({ max_context_tokens: firstContext(q) + 1500, finalization_reserve_tokens: 500 });
    const doc = t.snap.documents.find((d) => d.title === '计算属性')!;
    let seen: { status: string; payload: unknown; leaked: boolean } | null = null;
    t.server.scriptChat(act('list_blocks', { doc_id: doc.doc_id }), (body) => {
      const o = lastObservation(body);
      seen = { status: o.harness_status, payload: o.payload, leaked: (body.messages as Array<{ content: string }>)[0]!.content.includes(doc.blocks[5]!.text) };
      return 'Thought: too big.\nAction: Finish[The section is too large for the budget; ask about a smaller part.]';
    });
    const r = await run(q, { budgets: small });
    assert.deepEqual(seen, { status: 'context_budget_exceeded', payload: null, leaked: false });
    assert.equal(r.release.status, 'SUCCESS');
    assert.equal(r.counts.tool_calls, 1);
  });

  it('non-empty results the model rates NO_GAIN twice saturate the run; tool spans and rejected spans are audited apart', async () => {
    const records: TraceRecord[] = [];
    t.server.scriptChat(
      act('scan_term', { term: 'cell' }),
      act('scan_term', { term: 'membrane' }, { id: 'call-1', gain: 'NO_GAIN' }),
      act('scan_term', { term: 'nucleus' }, { id: 'call-2', gain: 'NO_GAIN' }), // saturated: STOP_REQUIRED instead of running
      'Thought: nothing new.\nAction: Finish[The notes mention cells but say nothing more specific.]',
    );
    const r = await run('Tell me about cells', { tracer: new Tracer('metadata', { write: (x) => records.push(x) }) });
    assert.equal(r.stop_reason, 'INFORMATION_SATURATED');
    assert.equal(r.release.status, 'SUCCESS', 'the model may still Finish after STOP_REQUIRED');
    assert.deepEqual(r.counts, { agent_turns: 4, tool_calls: 2, model_calls: 4, rejected_requests: 1 });
    const kinds = (k: string) => records.filter((x) => x.type === 'span' && x.kind === k) as Array<Extract<TraceRecord, { type: 'span' }>>;
    assert.equal(kinds('tool_call').length, 2);
    assert.deepEqual(kinds('rejected_request').map((x) => [x.attributes.reason, x.attributes.stop_reason, x.attributes.information_gain]), [['stop_required', 'INFORMATION_SATURATED', 'NO_GAIN']]);
    assert.equal(kinds('llm_call').length, r.counts.model_calls);
  });

  it('the tool-call limit is a budget stop: STOP_REQUIRED once with BUDGET_LIMIT_REACHED, then a tool request ends the run with a fallback', async () => {
    t.server.scriptChat(
      act('scan_term', { term: 'cell' }),
      act('scan_term', { term: 'nucleus' }, { id: 'call-1', gain: 'GAINED' }),
      act('scan_term', { term: 'membrane' }, { id: 'call-2', gain: 'GAINED' }), // a third call: over the limit
      (body) => {
        const o = lastObservation(body) as unknown as { harness_status: string; message: string };
        assert.equal(o.harness_status, 'stop_required');
        assert.match(o.message, /^BUDGET_LIMIT_REACHED/);
        return act('scan_term', { term: 'wall' });
      },
    );
    const r = await run('Everything about cells', { budgets: Budgets.parse({ max_tool_calls: 2 }) });
    assert.deepEqual([r.release.status, r.release.reason, r.stop_reason], ['FALLBACK', 'INSUFFICIENT_EVIDENCE', 'BUDGET_LIMIT_REACHED']);
    assert.deepEqual(r.counts, { agent_turns: 4, tool_calls: 2, model_calls: 4, rejected_requests: 2 });
    assert.match(r.answer!, /\n- Scanning all 5 documents for “cell”: \d+ hits in \d+ blocks\n- Scanning all 5 documents for “nucleus”: \d+ hits? in \d+ blocks?/);
  });

  it('zero tool calls is legal (clarification or out of scope), and a partial snapshot’s missing documents are disclosed', async () => {
    t.server.scriptChat('Thought: which course?\nAction: Finish[CLARIFY: Which course do you mean: biology or history?]');
    const r = await run('Summarise the course');
    assert.deepEqual([r.release.status, r.release.reason, r.counts.tool_calls, r.counts.model_calls], ['FALLBACK', 'MISSING_REQUIRED_CONTEXT', 0, 1]);
    assert.equal(r.answer, 'Which course do you mean: biology or history?');
    // Out of scope: declined through Finish without tools is an ordinary answer.
    t.server.scriptChat('Thought: a study plan is out of scope.\nAction: Finish[I answer questions about your documents; I do not make study plans.]');
    const o = await run('Make me a study plan for the exam');
    assert.deepEqual([o.release.status, o.release.reason, o.counts.tool_calls], ['SUCCESS', null, 0]);
    // Clarification after a search: the question to the user, then what was verified, no citations invented.
    t.server.scriptChat(act('scan_term', { term: 'mitochondria' }), 'Thought: the notes name two labs.\nAction: Finish[需要澄清：你问的是哪一次实验？]');
    const c = await run('What did the lab measure?');
    // (The seed's flowchart: verified facts first, so INSUFFICIENT_EVIDENCE with what was checked, in the question's language.)
    assert.deepEqual([c.release.status, c.release.reason, c.counts.tool_calls], ['FALLBACK', 'INSUFFICIENT_EVIDENCE', 1]);
    assert.match(c.answer!, /^你问的是哪一次实验？\n\nChecked in this run:\n- Scanning all 5 documents for “mitochondria”: /);
    t.server.scriptChat((body) => {
      const system = (body.messages as Array<{ content: string }>)[0]!.content;
      assert.match(system, /"completeness":"partial"/);
      return 'Thought: answer.\nAction: Finish[Cells are the basic unit of life.]';
    });
    const p = await run('What is a cell?', { snapshot: t.partial });
    assert.match(p.answer!, /could not be indexed.*lecture\.pdf; page\(s\) 2 of handout\.pdf could not be read and are not covered\)$/);
  });

  it('a query embedding that fails is retried once by its client and never again by the harness (one query: at most 2 requests, not 4)', async () => {
    const { snapshot: hybrid, embedding } = await t.hybrid();
    const embeddings = () => t.server.requests.filter((q) => q.path === '/v1/embeddings').length;
    // One failure: the client's retry succeeds; the retry is counted and traced once.
    t.server.inject('/v1/embeddings', { kind: 'server_error' });
    let status = '';
    t.server.scriptChat(act('search_blocks', { query: 'microscope' }), (body) => {
      const o = lastObservation(body) as unknown as { harness_status: string; payload: { mode?: string; error?: unknown } };
      status = `${o.harness_status} ${o.payload.mode ?? ''} ${o.payload.error ? 'error' : ''}`.trim();
      return 'Thought: ok.\nAction: Finish[Use a light microscope.]';
    });
    let before = embeddings();
    const records: TraceRecord[] = [];
    const r = await run('How to look at cells?', { snapshot: hybrid, embedQuery: queryEmbedderFor(hybrid.manifest.embedding, embedding, ''), tracer: new Tracer('metadata', { write: (x) => records.push(x) }) });
    assert.equal(status, 'ok hybrid');
    assert.deepEqual([r.release.status, r.counts.tool_calls, r.ledger.retries, embeddings() - before], ['SUCCESS', 1, 1, 2]);
    const retry = records.filter((x) => x.type === 'span' && x.kind === 'retry') as Array<Extract<TraceRecord, { type: 'span' }>>;
    assert.deepEqual(retry.map((x) => [x.name, x.attributes.of, x.attributes.after_error]), [['retry query embedding', 'query_embedding', 'server_error']]);
    // Two failures: the tool fails after exactly 2 requests (the harness used to retry the tool: 4).
    t.server.inject('/v1/embeddings', { kind: 'server_error' }, 2);
    t.server.scriptChat(act('search_blocks', { query: 'nucleus' }), (body) => {
      const o = lastObservation(body) as unknown as { harness_status: string; payload: { error?: { code: string; retryable: boolean } } };
      status = `${o.harness_status} ${o.payload.error?.code} ${o.payload.error?.retryable}`;
      return 'Thought: the search failed.\nAction: Finish[The search is unavailable.]';
    });
    before = embeddings();
    const f = await run('Where is the nucleus?', { snapshot: hybrid, embedQuery: queryEmbedderFor(hybrid.manifest.embedding, embedding, '') });
    assert.equal(status, 'ok upstream_unavailable false');
    assert.equal(embeddings() - before, 2, 'one logical query embedding, one retry');
    // The model answered anyway, citing nothing: that answer rests on no evidence and is not released.
    assert.deepEqual([f.release.status, f.release.reason, f.answer, f.counts.tool_calls, f.ledger.retries, f.release.failure?.attempts], ['FAILED', 'UPSTREAM_UNAVAILABLE', null, 1, 1, 2]);
    // A business error (a rejected key) comes back as the payload and is never retried.
    t.server.inject('/v1/embeddings', { kind: 'unauthorized' });
    t.server.scriptChat(act('search_blocks', { query: 'nucleus' }), 'Thought: the search failed.\nAction: Finish[The search is unavailable.]');
    before = embeddings();
    const b = await run('Where is the nucleus?', { snapshot: hybrid, embedQuery: queryEmbedderFor(hybrid.manifest.embedding, embedding, '') });
    assert.equal(embeddings() - before, 1, 'one embedding request: no retry');
    assert.deepEqual([b.counts.tool_calls, b.ledger.retries], [1, 0]);
  });

  it('a defect inside the loop (a model component returning no text) fails closed as HARNESS_INTERNAL_ERROR, traced', async () => {
    const records: TraceRecord[] = [];
    const broken = { complete: async () => ({ content: null as unknown as string, reasoning: '', finish_reason: 'stop', usage: null, model: null }) };
    const r = await run('Anything?', { model: broken, tracer: new Tracer('metadata', { write: (x) => records.push(x) }) });
    assert.deepEqual([r.release.status, r.release.reason, r.answer], ['FAILED', 'HARNESS_INTERNAL_ERROR', null]);
    const turn = records.find((x) => x.type === 'span' && x.kind === 'turn') as Extract<TraceRecord, { type: 'span' }>;
    assert.equal(turn.status, 'error');
    assert.match(String(turn.attributes.error), /^TypeError: /);
  });

  it('retries a transient model failure once (model_calls grows, turns do not); cancellation mid-stream is CANCELLED', async () => {
    t.server.inject('/v1/chat/completions', { kind: 'server_error' });
    t.server.scriptChat('Thought: simple.\nAction: Finish[Yes.]');
    const r = await run('Is this simple?');
    assert.deepEqual([r.release.status, r.counts.agent_turns, r.counts.model_calls], ['SUCCESS', 1, 2]);
    t.server.scriptChat('Thought: a long answer that the learner will stop before it is finished being written.');
    t.server.inject('/v1/chat/completions', { kind: 'stalled_stream' });
    const ac = new AbortController();
    const c = await run('Long question', { signal: ac.signal, onEvent: (e) => e.type === 'model_delta' && ac.abort() });
    assert.deepEqual([c.release.status, c.release.reason], ['CANCELLED', 'CANCELLED']);
  });
});
