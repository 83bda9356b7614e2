import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAction } from '../../src/harness/action-parser';
import { scopeKey } from '../../src/harness/scope-normalizer';

const TOOLS = ['list_documents', 'get_outline', 'search_blocks', 'list_blocks', 'scan_term'];

describe('parseAction', () => {
  it('reads a tool Action with its envelope, and a Finish whose answer may hold brackets and lines', () => {
    const t = parseAction('Thought: I need the outline.\nAction: get_outline[{"input": {"doc_ids": ["d1"]}, "previous_observation": {"tool_call_id": "call-1", "information_gain": "GAINED"}}]', TOOLS);
    assert.deepEqual(t, {
      kind: 'tool',
      thought: 'I need the outline.',
      tool: 'get_outline',
      envelope: { input: { doc_ids: ['d1'] }, previous_observation: { tool_call_id: 'call-1', information_gain: 'GAINED' } },
    });
    const f = parseAction('Thought: enough evidence.\nAction: Finish[The cell [1] has:\n- a nucleus【来源:d1#b2】]', TOOLS);
    assert.deepEqual(f, { kind: 'finish', thought: 'enough evidence.', answer: 'The cell [1] has:\n- a nucleus【来源:d1#b2】', clarification: false });
  });

  it('a Finish that asks the user for missing context is marked as a clarification, in either language', () => {
    const zh = parseAction('Thought: 不知道指哪份笔记。\nAction: Finish[需要澄清：你指的是哪一份实验报告？]', TOOLS);
    assert.deepEqual(zh, { kind: 'finish', thought: '不知道指哪份笔记。', answer: '你指的是哪一份实验报告？', clarification: true });
    const en = parseAction('Thought: which term?\nAction: Finish[clarify: Which semester do you mean?]', TOOLS);
    assert.equal(en.kind === 'finish' && en.clarification, true);
    // The word inside an ordinary answer is not a marker.
    const plain = parseAction('Thought: ok\nAction: Finish[To clarify: light reactions come first.]', TOOLS);
    assert.equal(plain.kind === 'finish' && plain.clarification, false);
  });

  const bad: Array<[string, string, string]> = [
    ['no Action at all', 'Thought: hmm, the answer is 42.', 'no_action'],
    ['two Actions', 'Thought: a\nAction: scan_term[{"input": {"term": "x"}}]\nAction: Finish[done]', 'multiple_actions'],
    ['no Thought', 'Action: Finish[done]', 'missing_thought'],
    ['a fabricated Observation', 'Thought: a\nObservation: {"ok": true}\nAction: Finish[done]', 'fabricated_observation'],
    ['broken JSON', 'Thought: a\nAction: scan_term[{"input": {"term": "x"}]', 'bad_json'],
    ['JSON that is not an object', 'Thought: a\nAction: scan_term[["x"]]', 'not_object'],
    ['a tool outside the whitelist', 'Thought: a\nAction: run_python[{"input": {}}]', 'unknown_tool'],
    ['input missing from the envelope', 'Thought: a\nAction: scan_term[{"term": "x"}]', 'bad_envelope'],
    ['an unexpected envelope field', 'Thought: a\nAction: scan_term[{"input": {"term": "x"}, "budget": 99}]', 'bad_envelope'],
  ];
  for (const [what, text, violation] of bad) {
    it(`${what} is a protocol error (${violation}) with a message`, () => {
      const r = parseAction(text, TOOLS);
      assert.equal(r.kind, 'protocol_error');
      if (r.kind === 'protocol_error') {
        assert.equal(r.violation, violation);
        assert.ok(r.message.length > 10);
      }
    });
  }
});

describe('scopeKey', () => {
  it('ignores key order, surrounding spaces, Unicode composition and the order of id lists', () => {
    const a = scopeKey('scan_term', { term: ' cafe\u0301 ', doc_ids: ['d2', 'd1', 'd1'] });
    const b = scopeKey('scan_term', { doc_ids: ['d1', 'd2'], term: 'café' });
    assert.equal(a, b);
    assert.notEqual(scopeKey('scan_term', { term: 'café' }), scopeKey('search_blocks', { query: 'café' }));
    assert.notEqual(scopeKey('scan_term', { term: 'Café' }), scopeKey('scan_term', { term: 'café' }), 'case is part of the scope');
    assert.equal(scopeKey('list_blocks', { doc_id: 'd1', section_paths: undefined }), scopeKey('list_blocks', { doc_id: 'd1' }));
  });
});
