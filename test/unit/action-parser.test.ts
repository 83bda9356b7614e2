import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fixture } from '../helpers';
import { parseAction } from '../../src/harness/action-parser';
import { ThinkSplitter, splitThinking } from '../../src/harness/think-split';
import { unlistedScopeKey } from '../../src/tools/registry';

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

  it('refuses JSON nested deeper than 32 levels as bad_json (found by fuzzing: 4,106 levels overflowed the stack in scopeKey and the trace)', () => {
    const deep = `Thought: t\nAction: scan_term[{"input": {"term": ${'['.repeat(4106)}1${']'.repeat(4106)}}}]`;
    const r = parseAction(deep, TOOLS);
    assert.equal(r.kind === 'protocol_error' && r.violation, 'bad_json');
    assert.match(r.kind === 'protocol_error' ? r.message : '', /nests 4108 levels deep, more than 32/);
    const ok = parseAction(`Action: scan_term[{"input": {"term": ${'['.repeat(30)}1${']'.repeat(30)}}}]`, TOOLS);
    assert.equal(ok.kind, 'tool');
    assert.doesNotThrow(() => unlistedScopeKey('scan_term', ok.kind === 'tool' ? ok.envelope.input : {}));
  });
});

interface Expected {
  kind: 'tool' | 'unavailable_tool' | 'finish' | 'protocol_error';
  tool?: string;
  input?: Record<string, unknown>;
  rated?: string;
  answer?: string;
  clarification?: boolean;
  violation?: string;
  message_includes?: string;
  /** The reasoning a local reasoning model wrote inside the content as <think>…</think> (the turn is parsed without it). */
  think?: string;
}

describe('parseAction on model turns as models really write them (test/fixtures/model-turns)', () => {
  const dir = fixture('model-turns');
  const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<string, Expected>;
  it('has a fixture file for every expectation and the reverse', () => {
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.txt')).sort(), Object.keys(expected).sort());
  });
  for (const [file, e] of Object.entries(expected)) {
    it(`${file}: ${e.kind === 'protocol_error' ? `rejected (${e.violation})` : e.kind === 'unavailable_tool' ? `read, unavailable (${e.tool})` : `accepted (${e.kind === 'tool' ? e.tool : 'Finish'})`}`, () => {
      const raw = fs.readFileSync(path.join(dir, file), 'utf8');
      // As the chat client does: reasoning written inside the content is taken out before the turn is parsed.
      const split = splitThinking(raw);
      assert.equal(split.reasoning, e.think ?? '');
      // Streaming-safe: the turn split piece by piece, every tag cut, is split the same; and with an
      // opening tag, nothing of the reasoning was passed on while it streamed.
      const streaming = new ThinkSplitter();
      let passed = '';
      for (const ch of raw) passed += streaming.push(ch);
      assert.deepEqual(streaming.finish(), split);
      if (raw.trimStart().startsWith('<think>')) assert.equal(passed, split.content);
      const r = parseAction(split.content, TOOLS);
      assert.equal(r.kind, e.kind, JSON.stringify(r));
      if (r.kind === 'tool' || r.kind === 'unavailable_tool') {
        assert.equal(r.tool, e.tool);
        assert.deepEqual(r.envelope.input, e.input);
        const rated = r.envelope.previous_observation ? `${r.envelope.previous_observation.tool_call_id}:${r.envelope.previous_observation.information_gain}` : undefined;
        assert.equal(rated, e.rated);
      } else if (r.kind === 'finish') {
        assert.equal(r.answer, e.answer);
        assert.equal(r.clarification, e.clarification ?? false);
      } else {
        assert.equal(r.violation, e.violation);
        // A correction names the problem and shows the expected form.
        assert.match(r.message, /Expected: Thought: … then exactly one of {2}Action: tool_name\[\{"input": \{…\}\}\] {2}or {2}Action: Finish\[answer\]$/);
        if (e.message_includes) assert.ok(r.message.includes(e.message_includes), r.message);
      }
    });
  }
});
