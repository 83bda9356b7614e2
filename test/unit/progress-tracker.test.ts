import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgressTracker } from '../../src/harness/progress-tracker';

const gain = (id: string, g: string) => ({ tool_call_id: id, information_gain: g });

describe('ProgressTracker (information-gain seed §5–§9, §15)', () => {
  it('empty results count NO_GAIN automatically; GAINED resets the count', () => {
    const t = new ProgressTracker();
    assert.deepEqual(t.decide('s1', undefined), { kind: 'execute' });
    t.recordResult('c1', 's1', true);
    assert.equal(t.consecutiveNoGain, 1);
    assert.deepEqual(t.decide('s2', undefined), { kind: 'execute' });
    t.recordResult('c2', 's2', false);
    assert.equal(t.pendingToolCallId, 'c2');
    assert.deepEqual(t.decide('s3', gain('c2', 'GAINED')), { kind: 'execute' });
    assert.equal(t.consecutiveNoGain, 0);
    assert.equal(t.state, 'COLLECTING');
  });

  it('reaching the NO_GAIN threshold saturates: STOP_REQUIRED once, then a further tool request terminates', () => {
    const t = new ProgressTracker({ no_gain: 2 });
    t.decide('s1', undefined);
    t.recordResult('c1', 's1', false);
    assert.deepEqual(t.decide('s2', gain('c1', 'NO_GAIN')), { kind: 'execute' });
    t.recordResult('c2', 's2', true);
    assert.equal(t.state, 'SATURATED');
    assert.equal(t.stopReason, 'INFORMATION_SATURATED');
    assert.deepEqual(t.decide('s3', undefined), { kind: 'stop_required', reason: 'INFORMATION_SATURATED' });
    assert.deepEqual(t.decide('s4', undefined), { kind: 'terminate', reason: 'INFORMATION_SATURATED' });
    assert.equal(t.stopRequiredDelivered, true);
  });

  it('a repeated scope is rejected before the tool runs and counts as NO_GAIN', () => {
    const t = new ProgressTracker({ no_gain: 3 });
    t.decide('scan:x', undefined);
    t.recordResult('c1', 'scan:x', true);
    assert.deepEqual(t.decide('scan:x', undefined), { kind: 'reject_duplicate' });
    assert.equal(t.consecutiveNoGain, 2);
    assert.deepEqual(t.decide('scan:x', undefined), { kind: 'stop_required', reason: 'INFORMATION_SATURATED' });
  });

  it('missing, stale, wrong-id, unexpected and bad-value ratings are distinct violations, with the expected id and allowed values', () => {
    const t = new ProgressTracker({ violations: 99 });
    assert.equal((t.decide('s0', gain('c9', 'GAINED')) as { violation: string }).violation, 'unexpected_evaluation');
    t.decide('s1', undefined);
    t.recordResult('c1', 's1', false);
    t.decide('s2', gain('c1', 'GAINED'));
    t.recordResult('c2', 's2', false);
    const missing = t.decide('s3', undefined);
    assert.deepEqual(missing, { kind: 'reject_protocol', violation: 'missing_evaluation', expected_tool_call_id: 'c2', allowed_values: ['GAINED', 'NO_GAIN'] });
    assert.equal((t.decide('s3', gain('c1', 'GAINED')) as { violation: string }).violation, 'stale_evaluation');
    assert.equal((t.decide('s3', gain('c7', 'GAINED')) as { violation: string }).violation, 'wrong_id');
    assert.equal((t.decide('s3', gain('c2', 'MAYBE')) as { violation: string }).violation, 'bad_value');
    assert.equal(t.consecutiveNoGain, 0, 'protocol errors are not NO_GAIN');
    assert.deepEqual(t.decide('s3', gain('c2', 'GAINED')), { kind: 'execute' });
    assert.equal(t.consecutiveViolations, 0);
  });

  it('nine consecutive protocol violations stop at the threshold: STOP_REQUIRED once, then terminate', () => {
    const t = new ProgressTracker({ violations: 2 });
    t.decide('s1', undefined);
    t.recordResult('c1', 's1', false);
    const decisions = Array.from({ length: 9 }, (_, i) => t.decide(`s${i + 2}`, undefined).kind);
    assert.deepEqual(decisions, ['reject_protocol', 'stop_required', 'terminate', 'terminate', 'terminate', 'terminate', 'terminate', 'terminate', 'terminate']);
    assert.equal(t.stopReason, 'PROGRESS_PROTOCOL_VIOLATED');
  });

  it('budget exhaustion is its own stop reason', () => {
    const t = new ProgressTracker();
    t.budgetExhausted();
    assert.deepEqual(t.decide('s', undefined), { kind: 'stop_required', reason: 'BUDGET_LIMIT_REACHED' });
  });
});
