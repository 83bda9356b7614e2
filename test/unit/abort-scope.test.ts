import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { AbortScope } from '../../src/common/abort-scope';

describe("a request's abort scope", () => {
  it("aborts with the caller's reason when the caller's signal aborts, and only then", () => {
    const caller = new AbortController();
    const scope = new AbortScope(caller.signal);
    assert.equal(scope.signal.aborted, false);
    caller.abort(new Error('stopped by the user'));
    assert.equal(scope.signal.aborted, true);
    assert.equal((scope.signal.reason as Error).message, 'stopped by the user');
  });

  it("aborts at once for a caller's signal already aborted", () => {
    const scope = new AbortScope(AbortSignal.abort('gone'));
    assert.deepEqual([scope.signal.aborted, scope.signal.reason], [true, 'gone']);
  });

  it("aborting the request (a deadline) leaves the caller's signal alone", () => {
    const caller = new AbortController();
    const scope = new AbortScope(caller.signal);
    scope.abort(new Error('idle deadline'));
    assert.deepEqual([scope.signal.aborted, caller.signal.aborted], [true, false]);
  });

  it("lets go of the caller's signal when disposed: a question's signal does not collect one listener per request", () => {
    const caller = new AbortController();
    for (let i = 0; i < 100; i++) {
      const scope = new AbortScope(caller.signal);
      // What the openai SDK does with every request's signal: a listener it never removes.
      scope.signal.addEventListener('abort', () => undefined, { once: true });
      scope.dispose();
    }
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
    const later = new AbortScope(caller.signal);
    later.dispose();
    caller.abort();
    assert.equal(later.signal.aborted, false, 'a disposed scope no longer follows the caller');
  });

  it('works without a caller signal', () => {
    const scope = new AbortScope();
    scope.abort('deadline');
    scope.dispose();
    assert.equal(scope.signal.reason, 'deadline');
  });
});
