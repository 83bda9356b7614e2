import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { AgentEvent } from '../../src/harness/agent-loop';
import type { ArtifactRecord, SpanRecord, TraceRecord } from '../../src/shared/trace-model';
import { Tracer } from '../../src/trace/tracer';
import { type AgentSetup, lastObservation, systemOf, useAgentSetup } from './agent-setup';

/**
 * Reasoning models served locally (Qwen3, DeepSeek-R1 distillations on Ollama or LM Studio) write their
 * reasoning inside `content` as `<think>…</think>`: through the fake server over real HTTP, streamed in
 * pieces of 1 to 3 characters so that every tag and label is cut.
 */
describe('reasoning written inside the content', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  beforeEach(() => {
    t = setup();
    t.server.resetScript();
  });

  /** A full-mode tracer (artifacts kept) and its records. */
  function fullTrace() {
    const records: TraceRecord[] = [];
    const tracer = new Tracer('full', { write: (r) => records.push(r) });
    const artifacts = (kind: string) => records.filter((r): r is ArtifactRecord => r.type === 'artifact' && r.kind === kind).map((a) => a.content);
    const spans = (kind: string) => records.filter((r): r is SpanRecord => r.type === 'span' && r.kind === kind);
    return { tracer, artifacts, spans };
  }

  const drafted = '<think>\nThe user asks about the Calvin cycle. I could do this:\nAction: scan_term[{"input": {"term": "Calvin"}}]\nbut a search is better.\n</think>\n\nThought: search the notes.\nAction: search_blocks[{"input": {"query": "Calvin cycle sugar"}}]';

  it('a drafted Action inside <think> made the turn a protocol error (two actions): the reasoning goes to the trace, the turn’s own Action runs', async () => {
    let history = '';
    let first = '';
    t.server.scriptChat({ content: drafted, chunk: 3 }, (body) => {
      const o = lastObservation(body);
      first = `${o.harness_status} ${String((o as { tool?: string }).tool)}`;
      history = systemOf(body);
      return 'Thought: enough.\nAction: Finish[The Calvin cycle builds sugar.]';
    });
    const trace = fullTrace();
    const r = await t.run('What does the Calvin cycle do?', { tracer: trace.tracer });
    assert.equal(first, 'ok search_blocks');
    assert.deepEqual([r.release.status, r.counts.tool_calls, r.counts.rejected_requests], ['SUCCESS', 1, 0]);
    // Kept for the trace like reasoning_content; never sent back to the model.
    const reasoning = trace.artifacts('reasoning');
    assert.equal(reasoning.length, 1);
    assert.match(reasoning[0]!, /^The user asks about the Calvin cycle\. I could do this:\nAction: scan_term/);
    assert.ok(!trace.artifacts('model_output')[0]!.includes('<think>'), 'the turn as parsed has no reasoning');
    assert.ok(!history.includes('I could do this') && !history.includes('<think>'), 'the reasoning is not in the history');
    assert.ok(history.includes('Action: search_blocks[{"input": {"query": "Calvin cycle sugar"}}]'));
  });

  it('a Finish turn’s <think> streamed into the answer and its drafted Finish was a second action: the answer is only the turn’s own, as it streams and as released', async () => {
    const events: AgentEvent[] = [];
    t.server.scriptChat({
      content: '<think>\nDraft: Action: Finish[Cells are tiny.] — too vague, say more.\n</think>\nThought: I can answer.\nAction: Finish[Cells are the basic unit of life.]',
      chunk: 1,
    });
    const r = await t.run('What is a cell?', { onEvent: (e) => events.push(e) });
    assert.deepEqual([r.release.status, r.answer], ['SUCCESS', 'Cells are the basic unit of life.']);
    const streamed = events.flatMap((e) => (e.type === 'answer_delta' ? [e.text] : [])).join('');
    assert.equal(streamed, 'Cells are the basic unit of life.');
    const shown = events.flatMap((e) => (e.type === 'model_delta' ? [e.text] : [])).join('');
    assert.ok(!shown.includes('Draft') && !shown.includes('think>'), `the steps saw no reasoning: ${shown}`);
  });

  it('a template that opened <think> in the prompt leaves only </think>: the text before it is reasoning, not a second action', async () => {
    t.server.scriptChat(
      { content: 'Okay, I will search.\nAction: scan_term[{"input": {"term": "cell"}}]\nThen answer.\n</think>\n\nThought: search.\nAction: search_blocks[{"input": {"query": "cell membrane"}}]', chunk: 3 },
      (body) => {
        assert.equal(lastObservation(body).harness_status, 'ok');
        return 'Thought: enough.\nAction: Finish[Done.]';
      },
    );
    const trace = fullTrace();
    const r = await t.run('What is a cell membrane?', { tracer: trace.tracer });
    assert.deepEqual([r.release.status, r.counts.tool_calls], ['SUCCESS', 1]);
    assert.match(trace.artifacts('reasoning')[0]!, /^Okay, I will search\./);
    assert.equal(trace.spans('tool_call')[0]!.attributes.tool, 'search_blocks');
  });
});
