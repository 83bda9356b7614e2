import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAction } from '../../src/harness/action-parser';
import type { AgentEvent } from '../../src/shared/run-result';
import { Budgets } from '../../src/harness/budget';
import { RunLimits } from '../../src/harness/run-limits';
import type { Loop } from '../../src/harness/loop-context';
import { ProgressTracker } from '../../src/harness/progress-tracker';
import { giveUp } from '../../src/harness/release';
import { gateRequest } from '../../src/harness/request-gate';
import { RunState } from '../../src/harness/run-state';
import { describeCall, summarizeCall } from '../../src/tools/registry';
import type { LoadedSnapshot } from '../../src/index/store/snapshot-store';
import type { SpanRecord, TraceRecord } from '../../src/shared/trace-model';
import { Tracer } from '../../src/trace/tracer';

const TOOLS = ['list_documents', 'get_outline', 'search_blocks', 'list_blocks', 'scan_term'] as const;
const snapshot = { manifest: { id: 's1', state: 'ready', failed_documents: [], embedding: { provider: 'none' } }, documents: [{ doc_id: 'd1', title: 'Cells' }], vectors: null } as unknown as LoadedSnapshot;

/** One run's loop context over a stand-in snapshot, recording spans and events. */
function loop(budgets = Budgets.parse({})) {
  const records: TraceRecord[] = [];
  const events: AgentEvent[] = [];
  const tracer = new Tracer('metadata', { write: (r) => records.push(r) });
  const l: Loop = {
    o: { question: 'q', snapshot, model: { complete: async () => { throw new Error('no model here'); } }, bundle: null as never, run: RunLimits.parse({ budgets }) },
    state: new RunState(),
    tracker: new ProgressTracker({ no_gain: 2, violations: 2 }),
    tracer,
    root: tracer.start('request', 'request', null),
    whitelist: TOOLS,
    lang: 'en',
    answerLang: 'en',
    emit: (e) => events.push(e),
    ledger: () => {},
    frameTokens: () => 100,
  };
  const turn = tracer.start('turn', 'turn', l.root);
  const spans = (kind: string) => records.filter((r): r is SpanRecord => r.type === 'span' && r.kind === kind);
  const lastObservation = () => JSON.parse(l.state.history.at(-1)!.slice('Observation: '.length)) as { harness_status: string; message: string };
  const tool = (text: string) => parseAction(text, TOOLS) as Exclude<ReturnType<typeof parseAction>, { kind: 'finish' }>;
  return { l, turn, events, spans, lastObservation, tool };
}

describe('loop steps', () => {
  it('the request gate: a malformed turn is corrected with the expected form; every rejection is one span, one count and one event', () => {
    const t = loop();
    assert.deepEqual(t.l.state.counts.rejected_requests, 0);
    const r = gateRequest(t.l, t.turn, t.tool('no action here'), '');
    assert.equal(r.kind, 'rejected');
    assert.equal(t.lastObservation().harness_status, 'protocol_error');
    assert.match(t.lastObservation().message, /^no_action: no "Action:" line\. Expected: Thought: …/);
    assert.deepEqual([t.l.state.counts.rejected_requests, t.spans('rejected_request').length, t.events.filter((e) => e.type === 'request_rejected').length], [1, 1, 1]);
  });

  it('the request gate tells a reasoning model its Action was in the reasoning, which is not read', () => {
    const t = loop();
    gateRequest(t.l, t.turn, t.tool('I will search now.'), 'Thought: search\nAction: search_blocks[{"input": {"query": "x"}}]');
    assert.match(t.lastObservation().message, /an Action appeared in the reasoning, which is not read: write it in the answer/);
  });

  it('the request gate: a tool out of service is rejected before it runs, as tool_unavailable; the tool-call limit gives STOP_REQUIRED once, then ends the run', () => {
    const t = loop(Budgets.parse({ max_tool_calls: 1 }));
    t.l.state.unavailable.set('search_blocks', 'the embedding endpoint is down');
    assert.equal(gateRequest(t.l, t.turn, t.tool('Action: search_blocks[{"input": {"query": "x"}}]'), '').kind, 'rejected');
    assert.equal(t.lastObservation().harness_status, 'tool_unavailable');
    assert.match(t.lastObservation().message, /search_blocks is unavailable in this run \(the embedding endpoint is down\)/);
    assert.deepEqual(gateRequest(t.l, t.turn, t.tool('Action: scan_term[{"input": {"term": "X"}}]'), ''), { kind: 'execute', tool: 'scan_term', scope: 'scan_term:{"docs":"all","needle":"x"}' });
    t.l.state.counts.tool_calls = 1;
    t.l.tracker.recordResult('call-1', 'scan_term:{"docs":"all","needle":"x"}', false);
    assert.equal(gateRequest(t.l, t.turn, t.tool('Action: scan_term[{"input": {"term": "y"}}]'), '').kind, 'rejected');
    assert.equal(t.lastObservation().harness_status, 'stop_required');
    assert.deepEqual(gateRequest(t.l, t.turn, t.tool('Action: scan_term[{"input": {"term": "z"}}]'), ''), { kind: 'terminate', reason: 'BUDGET_LIMIT_REACHED' });
    assert.deepEqual([t.l.state.counts.rejected_requests, t.spans('rejected_request').map((s) => s.attributes.reason)], [3, ['tool_unavailable', 'stop_required', 'terminated']]);
  });

  it('giving up: a technical failure is the reason; else verified facts make a fallback; else the run fails closed', () => {
    const none = loop();
    const closed = giveUp(none.l, 'PROGRESS_PROTOCOL_VIOLATED', 'PROGRESS_PROTOCOL_VIOLATED');
    assert.deepEqual([closed.release.status, closed.release.reason, closed.answer], ['FAILED', 'PROGRESS_PROTOCOL_VIOLATED', null]);

    const facts = loop();
    facts.l.state.facts.push({ tool_call_id: 'call-1', scope: describeCall('scan_term', { term: 'x' }, { snapshot }), outcome: summarizeCall('scan_term', { term: 'x' }, { term: 'x', hits: [], total_count: 0, empty_reason: 'no_match', token_estimate: 1 }, { snapshot }).outcome });
    const fallback = giveUp(facts.l, 'INFORMATION_SATURATED', 'INFORMATION_SATURATED');
    assert.deepEqual([fallback.release.status, fallback.release.reason], ['FALLBACK', 'INSUFFICIENT_EVIDENCE']);
    assert.match(fallback.answer!, /Scanning all 1 document for “x”: 0 hits/);

    facts.l.state.technical = { reason: 'UPSTREAM_UNAVAILABLE', detail: 'the query could not be embedded', failure: null };
    const failed = giveUp(facts.l, 'INFORMATION_SATURATED', 'INFORMATION_SATURATED');
    assert.deepEqual([failed.release.status, failed.release.reason, failed.release.detail, failed.answer], ['FAILED', 'UPSTREAM_UNAVAILABLE', 'the query could not be embedded', null]);
    assert.equal(failed.progress.facts.length, 1, 'the progress stays in the result');
  });
});
