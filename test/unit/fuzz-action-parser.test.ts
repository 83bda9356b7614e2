import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ACTION_VIOLATIONS, type ParsedAction, ToolEnvelope, jsonObjectEnd, parseAction } from '../../src/harness/action-parser';
import { TOOL_NAMES } from '../../src/tools/tool';
import { recordTrials } from '../reliability/trials';
import { anyText, assertPrototypesClean, codeUnit, hostileJson, runs, trialsOf } from '../fuzz';

/**
 * Property tests of the Action parser (issue 24 item 6): whatever a model writes, the parser returns a
 * tool call on the whitelist with a valid envelope, a non-empty Finish, or one of the documented
 * protocol violations, and never throws. Inputs: arbitrary text, near-miss Action syntax, huge turns,
 * lone surrogates, deep brackets.
 */
const WHITELIST = TOOL_NAMES;

/** The one property every parse must keep. */
function assertWellFormed(text: string, a: ParsedAction): void {
  if (a.kind === 'protocol_error') {
    assert.ok((ACTION_VIOLATIONS as readonly string[]).includes(a.violation), a.violation);
    assert.match(a.message, /Expected: Thought: … then exactly one of/);
  } else if (a.kind === 'tool') {
    assert.ok((WHITELIST as readonly string[]).includes(a.tool), `tool ${a.tool} is not on the whitelist`);
    assert.ok(ToolEnvelope.safeParse(a.envelope).success, 'the envelope is not a valid ToolEnvelope');
    assert.equal(Object.getPrototypeOf(a.envelope.input), Object.prototype, 'the input is not a plain object');
    // The envelope must survive being written into the history and the trace.
    assert.doesNotThrow(() => JSON.stringify(a.envelope));
  } else {
    assert.equal(a.kind, 'finish');
    assert.ok(a.answer.length > 0 && a.answer === a.answer.trim(), 'a Finish answer is non-empty and trimmed');
    assert.ok(text.length >= a.answer.length);
  }
}

const parse = (text: string) => {
  const a = parseAction(text, WHITELIST);
  assertWellFormed(text, a);
  return a;
};

/** Pieces models really write around an Action, shuffled into near-misses. */
const FRAGMENTS = [
  'Thought:', 'Thought: ', 'Action:', 'Action: ', '**Action:**', '**Action**:', '### Action:', '> Action:', 'Action：', 'action:', 'ACTION:',
  'Observation:', 'Observation: {', 'Finish', 'finish', 'FINISH', 'Finish[', 'Finish[]', 'CLARIFY:', '需要澄清：',
  ...WHITELIST, 'unknown_tool', 'search_blocks(', '[', ']', '{', '}', '(', ')', '"', '\\', ':', ',', ' ', '\t', '\n', '\r\n',
  '```', '```json\n', '~~~', '\n```', '"input"', '"input":', '{"input": {}}', '{"input": {"query": "x"}}', '{"query": "x"}',
  '"previous_observation": {"tool_call_id": "call-1", "information_gain": "GAINED"}', '"information_gain"', '"NO_GAIN"', 'null', '[]', '1e999',
  '\u202e', '\ud800', '\udfff', '\u0000', '【来源:d1#b2】',
];
const nearMiss = fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) }, { weight: 1, arbitrary: fc.string({ unit: codeUnit, maxLength: 8 }) }), { maxLength: 40 }).map((xs) => xs.join(''));

/** A JSON object of plain keys (no `__proto__`: the envelope drops that key) and any JSON values. */
const plainInput = fc.dictionary(fc.string({ maxLength: 10 }).filter((k) => k !== '__proto__'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });

describe('fuzz: the Action parser', () => {
  after(assertPrototypesClean);

  it('arbitrary text, lone surrogates and controls included, gives a well-formed result', () => {
    fc.assert(fc.property(anyText(400), (text) => void parse(text)), runs(1500));
    assertPrototypesClean();
    recordTrials({ area: 'fuzzing', fault: 'Action parser: arbitrary text with lone surrogates', trials: trialsOf(1500), outcome: 'a tool call, a Finish or a documented protocol violation; no crash' }, __filename);
  });

  it('near-miss Action syntax (labels, brackets, fences, quotes shuffled) gives a well-formed result', () => {
    fc.assert(fc.property(nearMiss, (text) => void parse(text)), runs(2500));
    recordTrials({ area: 'fuzzing', fault: 'Action parser: near-miss Action syntax', trials: trialsOf(2500), outcome: 'a tool call, a Finish or a documented protocol violation; no crash' }, __filename);
  });

  it('hostile JSON in the Action (__proto__ keys, huge numbers, NaN strings) is a tool call with a plain input or a protocol error', () => {
    const tool = fc.constantFrom(...WHITELIST);
    fc.assert(
      fc.property(tool, hostileJson, hostileJson, (name, input, other) => {
        for (const json of [input, `{"input": ${input}}`, `{"input": ${input}, "previous_observation": ${other}}`, `{"input": ${input}, ${JSON.stringify('__proto__')}: ${other}}`]) {
          const a = parse(`Thought: t\nAction: ${name}[${json}]`);
          if (a.kind === 'tool') assert.ok(!Object.hasOwn(a.envelope.input, '__proto__') || Object.getPrototypeOf(a.envelope.input) === Object.prototype);
        }
        assertPrototypesClean();
      }),
      runs(1200),
    );
    recordTrials({ area: 'fuzzing', fault: 'Action parser: hostile JSON (__proto__, huge numbers, NaN strings)', trials: trialsOf(1200), outcome: 'plain input or documented violation bad_json/not_object/bad_envelope; no pollution' }, __filename);
  });

  it('round trip: a well-formed tool Action gives back its input and rating; a well-formed Finish its answer', () => {
    const rating = fc.option(fc.record({ tool_call_id: fc.string({ maxLength: 10 }), information_gain: fc.constantFrom('GAINED', 'NO_GAIN') }), { nil: undefined });
    // Thoughts and answers without labels at a line start, markers or a closing bracket at the end.
    const words = fc.string({ unit: fc.oneof(codeUnit.filter((c) => !/[:：\n\r\]\u2028\u2029]/.test(c)), fc.constantFrom(' ', '[', ']', '\n')), minLength: 1, maxLength: 80 });
    fc.assert(
      fc.property(fc.constantFrom(...WHITELIST), plainInput, rating, words, fc.constantFrom('', '```json\n'), (name, input, prev, thought, fence) => {
        const env = prev ? { input, previous_observation: prev } : { input };
        const t = thought.replace(/\n/g, ' ');
        const closing = fence ? '\n```' : '';
        const a = parse(`Thought: ${t}\nAction: ${name}[${fence}${JSON.stringify(env)}${closing}]`);
        assert.equal(a.kind, 'tool', JSON.stringify(a));
        assert.deepEqual(a.kind === 'tool' && a.envelope, JSON.parse(JSON.stringify(env)));
        assert.equal(a.kind === 'tool' && a.thought, t.trim());
      }),
      runs(1200),
    );
    fc.assert(
      fc.property(words, (answer) => {
        fc.pre(answer.trim().length > 0 && !/^(?:需要澄清|CLARIFY)/i.test(answer.trim()) && !/^[ \t]*(?:`{3,}|~{3,})/m.test(answer));
        const a = parse(`Thought: done\nAction: Finish[${answer}]`);
        assert.deepEqual(a, { kind: 'finish', thought: 'done', answer: answer.trim(), clarification: false });
      }),
      runs(1200),
    );
    recordTrials({ area: 'fuzzing', fault: 'Action parser: round trip of well-formed tool Actions and Finish answers', trials: trialsOf(2400), outcome: 'input, rating and answer read back unchanged' }, __filename);
  });

  it('huge turns (megabytes, in one line or many) are parsed without a crash', () => {
    const big = fc.record({
      size: fc.integer({ min: 100_000, max: 2_000_000 }),
      filler: fc.constantFrom('x', ' ', '\n', 'Thought: ', '[', '{', '"', '\\', '】'),
      shape: fc.constantFrom('prose', 'finish', 'tool-string', 'unclosed-json', 'many-labels'),
    });
    fc.assert(
      fc.property(big, ({ size, filler, shape }) => {
        const pad = filler.repeat(Math.ceil(size / filler.length));
        const text = {
          prose: pad,
          finish: `Thought: t\nAction: Finish[${pad}]`,
          'tool-string': `Action: scan_term[{"input": {"term": ${JSON.stringify(pad)}}}]`,
          'unclosed-json': `Action: scan_term[{"input": ${pad}`,
          'many-labels': 'Action: x\n'.repeat(Math.ceil(size / 10)),
        }[shape];
        parse(text);
      }),
      runs(12),
    );
    recordTrials({ area: 'fuzzing', fault: 'Action parser: huge turns (0.1–2 MB)', trials: trialsOf(12), outcome: 'a documented result; no crash' }, __filename);
  });

  it('nested brackets: balanced or not, any depth, are a tool call of bounded depth or a protocol error', () => {
    const nest = fc.record({ depth: fc.integer({ min: 1, max: 200_000 }), open: fc.constantFrom('[', '{"a":'), balanced: fc.boolean() });
    fc.assert(
      fc.property(nest, ({ depth, open, balanced }) => {
        const close = open === '[' ? ']' : '}';
        const value = `${open.repeat(depth)}1${balanced ? close.repeat(depth) : ''}`;
        const a = parse(`Thought: t\nAction: scan_term[{"input": {"term": ${value}}}]`);
        // Whatever is accepted must survive the harness's JSON writes (scope key, trace, history).
        if (a.kind === 'tool') assert.doesNotThrow(() => JSON.stringify(a.envelope.input));
        parse(`Action: Finish[${'['.repeat(depth % 5000)}answer${balanced ? ']'.repeat(depth % 5000) : ''}]`);
      }),
      runs(60),
    );
    recordTrials({ area: 'fuzzing', fault: 'Action parser: nested brackets up to 200,000 deep', trials: trialsOf(60), outcome: 'documented error bad_json for deep or unbalanced JSON; no crash' }, __filename);
  });

  it('jsonObjectEnd finds the end of any JSON object, and only inside the text', () => {
    fc.assert(
      fc.property(plainInput, anyText(30), (obj, tail) => {
        const json = JSON.stringify(obj);
        assert.equal(jsonObjectEnd(json + tail, 0), json.length);
      }),
      runs(1000),
    );
    fc.assert(
      fc.property(anyText(100), fc.nat(100), (text, at) => {
        const end = jsonObjectEnd(text, Math.min(at, text.length));
        assert.ok(end === -1 || (end > 0 && end <= text.length));
      }),
      runs(1000),
    );
    recordTrials({ area: 'fuzzing', fault: 'jsonObjectEnd: JSON objects and arbitrary text', trials: trialsOf(2000), outcome: 'the exact end of an object, -1 otherwise; no crash' }, __filename);
  });
});
