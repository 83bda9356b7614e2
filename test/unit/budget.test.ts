import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Budgets, admit, decideFinal, decideTurn } from '../../src/harness/budget';

describe('budgets', () => {
  const budgets = Budgets.parse({});
  it('uses the seed defaults', () => {
    assert.deepEqual(budgets, { max_context_tokens: 100_000, max_request_tokens: 400_000, finalization_reserve_tokens: 4_000, max_tool_calls: 8 });
  });

  const b = Budgets.parse({ max_context_tokens: 1000, max_request_tokens: 5000, finalization_reserve_tokens: 100 });

  it('admission: a result that fits exactly is admitted; one token over is refused, naming the budget', () => {
    // context: next context + reserve <= max_context
    assert.deepEqual(admit(b, { context_tokens: 600, used_request_tokens: 0 }, 300), { admitted: true, context_tokens: 900 });
    assert.deepEqual(admit(b, { context_tokens: 600, used_request_tokens: 0 }, 301), { admitted: false, reason: 'context_budget_exceeded', context_tokens: 901, limit: 1000 });
    // request: used (this turn included) + next context + reserve <= max_request
    assert.deepEqual(admit(b, { context_tokens: 600, used_request_tokens: 4000 }, 300), { admitted: true, context_tokens: 900 });
    assert.deepEqual(admit(b, { context_tokens: 600, used_request_tokens: 4001 }, 300), { admitted: false, reason: 'request_budget_exceeded', context_tokens: 900, limit: 5000 });
  });

  it('an ordinary turn needs the reserve in both budgets, and its output is capped at what is left of the request', () => {
    assert.deepEqual(decideTurn(b, { used: 0, context: 900 }), { kind: 'turn', max_output_tokens: 4100 });
    assert.deepEqual(decideTurn(b, { used: 0, context: 901 }), { kind: 'stop', reason: 'context_budget_exceeded' });
    assert.deepEqual(decideTurn(b, { used: 4000, context: 900 }), { kind: 'turn', max_output_tokens: 100 });
    assert.deepEqual(decideTurn(b, { used: 4001, context: 900 }), { kind: 'final_round' });
  });

  it('the final round may spend the reserve: its prompt must leave at least one token, and its output is capped at the rest', () => {
    assert.deepEqual(decideFinal(b, { used: 4099, context: 900 }), { kind: 'final_round', max_output_tokens: 1 });
    assert.deepEqual(decideFinal(b, { used: 4100, context: 900 }), { kind: 'stop', reason: 'request_budget_exceeded' });
    assert.deepEqual(decideFinal(b, { used: 0, context: 901 }), { kind: 'stop', reason: 'context_budget_exceeded' });
  });
});
