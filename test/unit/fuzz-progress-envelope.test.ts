import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ToolEnvelope } from '../../src/harness/action-parser';
import { ProgressSnapshot, renderFallback } from '../../src/harness/progress-snapshot';
import { PROGRESS_VIOLATIONS, ProgressTracker, type RequestDecision } from '../../src/harness/progress-tracker';
import { wordedOutcome, wordedScope } from '../../src/tools/registry';
import { recordTrials } from '../reliability/trials';
import { assertPrototypesClean, codeUnit, hostileJson, runs, trialsOf } from '../fuzz';

/**
 * Property tests of the progress envelope (issue 24 item 6): the `previous_observation` rating a model
 * sends with each tool request, as the envelope schema reads it and the progress tracker judges it, and
 * the verified-progress snapshot a fallback answer is written from. Whatever the model sends, the
 * tracker answers with a documented decision, its state machine keeps its promises (STOP_REQUIRED once,
 * then only termination; a done scope never runs again), and no fallback text fails to render.
 */
const IDS = ['call-1', 'call-2', 'call-3', 'call-4', '', 'call-1 ', 'CALL-1'];
const SCOPES = ['scan_term:{"term":"a"}', 'scan_term:{"term":"b"}', 'search_blocks:{"query":"a"}', 'list_documents:{}'];

/** One thing that can happen to a tracker in a run. */
const step = fc.oneof(
  fc.record({
    op: fc.constant('decide' as const),
    scope: fc.constantFrom(...SCOPES),
    previous: fc.option(fc.record({ tool_call_id: fc.oneof(fc.constantFrom(...IDS), fc.string({ unit: codeUnit, maxLength: 8 })), information_gain: fc.oneof(fc.constantFrom('GAINED', 'NO_GAIN', 'gained', 'PARTIAL', ''), fc.string({ maxLength: 8 })) }), { nil: undefined }),
    empty: fc.boolean(),
  }),
  fc.record({ op: fc.constantFrom('format' as const, 'unavailable' as const, 'budget' as const, 'failure' as const), scope: fc.constantFrom(...SCOPES) }),
);

const DECISIONS = new Set(['execute', 'reject_protocol', 'reject_duplicate', 'reject_unavailable', 'stop_required', 'terminate']);

describe('fuzz: the progress envelope', () => {
  after(assertPrototypesClean);

  it('the envelope schema reads any JSON as an envelope or a zod rejection, never by throwing; __proto__ never pollutes', () => {
    fc.assert(
      fc.property(hostileJson, hostileJson, (input, prev) => {
        for (const json of [`{"input": ${input}, "previous_observation": ${prev}}`, `{"input": {}, "previous_observation": {"tool_call_id": ${prev}, "information_gain": ${input}}}`, `{"__proto__": ${prev}, "input": ${input}}`]) {
          const r = ToolEnvelope.safeParse(JSON.parse(json));
          if (r.success) {
            assert.equal(typeof r.data.input, 'object');
            if (r.data.previous_observation) assert.deepEqual(Object.keys(r.data.previous_observation).sort(), ['information_gain', 'tool_call_id']);
          } else assert.ok(r.error.issues.length > 0);
        }
        assertPrototypesClean();
      }),
      runs(1500),
    );
    recordTrials({ area: 'fuzzing', fault: 'progress envelope: arbitrary previous_observation JSON', trials: trialsOf(1500), outcome: 'an envelope or a zod rejection (bad_envelope); no crash; no pollution' }, __filename);
  });

  it('any sequence of ratings and requests: documented decisions, STOP_REQUIRED at most once then only termination, no scope run twice', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), (steps, noGain, violations) => {
        const t = new ProgressTracker({ no_gain: noGain, violations });
        let calls = 0;
        let stops = 0;
        let reason: string | null = null;
        const check = (d: RequestDecision) => {
          assert.ok(DECISIONS.has(d.kind), d.kind);
          if (d.kind === 'reject_protocol') {
            assert.ok((PROGRESS_VIOLATIONS as readonly string[]).includes(d.violation), d.violation);
            assert.deepEqual([...d.allowed_values], ['GAINED', 'NO_GAIN']);
          }
          if (d.kind === 'stop_required') stops++;
          if (stops > 0 && d.kind !== 'stop_required') assert.equal(d.kind, 'terminate', 'after STOP_REQUIRED only termination');
          if (d.kind === 'stop_required' || d.kind === 'terminate') {
            assert.ok(t.isSaturated() && t.stopReason);
            reason ??= t.stopReason;
            assert.equal(t.stopReason, reason, 'the stop reason never changes');
          }
        };
        for (const s of steps) {
          if (s.op === 'decide') {
            const doneBefore = t.completedScopes.has(s.scope);
            const d = t.decide(s.scope, s.previous);
            check(d);
            if (d.kind === 'execute') {
              assert.ok(!doneBefore, 'a done scope is never executed again');
              t.recordResult(`call-${++calls}`, s.scope, s.empty);
            }
          } else if (s.op === 'format') check(t.formatViolation());
          else if (s.op === 'unavailable') {
            if (!t.isSaturated()) check(t.rejectUnavailable());
          } else if (s.op === 'budget') t.budgetExhausted();
          else t.recordFailure(s.scope);
          assert.ok(stops <= 1, 'STOP_REQUIRED is delivered once');
          if (!t.isSaturated()) assert.ok(t.consecutiveViolations < violations && t.consecutiveNoGain < noGain, 'below the thresholds while collecting');
        }
      }),
      runs(3000),
    );
    recordTrials({ area: 'fuzzing', fault: 'progress envelope: random sequences of ratings, repeats and violations', trials: trialsOf(3000), outcome: 'documented decisions; STOP_REQUIRED once, then terminate; no crash' }, __filename);
  });

  it('any valid progress snapshot renders a fallback in both languages naming every checked fact', () => {
    const scopeData = fc.record({
      tool: fc.constantFrom('list_documents', 'get_outline', 'search_blocks', 'list_blocks', 'scan_term', 'made_up'),
      documents: fc.record({ count: fc.nat(50), of: fc.nat(50), all: fc.boolean(), titles: fc.array(fc.string({ unit: codeUnit, maxLength: 10 }), { maxLength: 3 }) }),
      sections: fc.array(fc.string({ unit: codeUnit, maxLength: 10 }), { maxLength: 3 }),
      text: fc.option(fc.string({ unit: codeUnit, maxLength: 20 }), { nil: null }),
      filters: fc.dictionary(fc.constantFrom('source', 'lang', 'title_contains', '__proto__'), fc.string({ maxLength: 6 })),
    });
    const outcomeData = fc.record({
      kind: fc.constantFrom('ok' as const, 'empty' as const, 'error' as const, 'not_admitted' as const),
      blocks: fc.nat(),
      hits: fc.nat(),
      hit_blocks: fc.nat(),
      hit_documents: fc.nat(),
      documents: fc.nat(),
      sections: fc.nat(),
      empty_reason: fc.option(fc.constantFrom('no_match', 'scope_empty', 'collection_empty', 'odd'), { nil: null }),
      error: fc.option(fc.record({ code: fc.string({ maxLength: 10 }), message: fc.string({ unit: codeUnit, maxLength: 20 }) }), { nil: null }),
      not_admitted: fc.option(fc.record({ reason: fc.string({ maxLength: 10 }), tokens: fc.nat() }), { nil: null }),
    });
    // Steps carry their words: any data is given its tool's words, as a stored record of version 1 is.
    const scope = scopeData.map(wordedScope);
    const outcome = fc.tuple(scopeData, outcomeData).map(([s, o]) => wordedOutcome(s, o));
    const snapshot = fc.record({
      stop_reason: fc.option(fc.constantFrom('INFORMATION_SATURATED', 'BUDGET_LIMIT_REACHED', 'PROGRESS_PROTOCOL_VIOLATED', 'SOMETHING_NEW'), { nil: null }),
      sources: fc.array(fc.record({ ref: fc.string({ maxLength: 8 }), doc_title: fc.string({ maxLength: 8 }), section_path: fc.string({ unit: codeUnit, maxLength: 12 }) }), { maxLength: 4 }),
      facts: fc.array(fc.record({ tool_call_id: fc.string({ maxLength: 8 }), scope, outcome }), { maxLength: 4 }),
      scopes_checked: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
      limitations: fc.array(
        fc.record({ kind: fc.constantFrom('not_admitted', 'tool_error', 'tool_unavailable', 'partial_collection'), tool_call_id: fc.option(fc.string({ maxLength: 8 }), { nil: null }), scope: fc.option(scope, { nil: null }), outcome: fc.option(outcome, { nil: null }), documents: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }) }),
        { maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(snapshot, (raw) => {
        const p = ProgressSnapshot.parse(raw);
        for (const lang of ['en', 'zh'] as const) {
          const text = renderFallback(p, lang);
          assert.equal(text.split('\n').filter((l) => l.startsWith('- ')).length >= p.facts.length, true);
        }
      }),
      runs(1500),
    );
    recordTrials({ area: 'fuzzing', fault: 'progress snapshot: arbitrary valid snapshots rendered as a fallback', trials: trialsOf(1500), outcome: 'a fallback text listing every fact, both languages; no crash' }, __filename);
  });
});
