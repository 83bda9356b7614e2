import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppSettings, AskEvent, BuildEvent, ConnectionReport } from '../../src/app/schemas';

describe('the application layer’s schemas (one place, reused by the webview protocol)', () => {
  it('validate what crosses a boundary: an event of an unknown type or a malformed field is refused', () => {
    assert.equal(AskEvent.safeParse({ type: 'turn_started', turn: 1, final_round: false }).success, true);
    assert.equal(AskEvent.safeParse({ type: 'turn_started', turn: 'one', final_round: false }).success, false);
    assert.equal(AskEvent.safeParse({ type: 'launch_missiles' }).success, false);
    assert.equal(BuildEvent.safeParse({ type: 'build_cancelled', build_id: 'b1' }).success, true);
    assert.equal(ConnectionReport.safeParse({ provider: 'chat', ok: true }).success, false);
    assert.equal(AppSettings.safeParse({ run: { budgets: { max_tool_calls: -1 } } }).success, false);
  });
});
