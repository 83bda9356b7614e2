import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Budgets, admit } from '../../src/harness/budget';
import { checkCitations } from '../../src/harness/citations';

describe('checkCitations', () => {
  const returned = new Set(['d1#b1', 'd2#b7']);
  it('keeps refs the tools returned, removes and reports the others', () => {
    const r = checkCitations('光反应在类囊体膜上进行【来源:d1#b1】。卡尔文循环在基质中【来源:d9#bX】。两者相连【来源:d1#b1, d3#b3；d2#b7】。', returned);
    assert.equal(r.answer, '光反应在类囊体膜上进行【来源:d1#b1】。卡尔文循环在基质中。两者相连【来源:d1#b1, d2#b7】。');
    assert.deepEqual(r.cited, ['d1#b1', 'd2#b7']);
    assert.deepEqual(r.removed, ['d9#bX', 'd3#b3']);
  });
  it('accepts a full-width colon and spaces; leaves text without markers untouched', () => {
    assert.deepEqual(checkCitations('A【来源： d2#b7 】', returned), { answer: 'A【来源:d2#b7】', cited: ['d2#b7'], removed: [] });
    assert.deepEqual(checkCitations('No sources here.', returned), { answer: 'No sources here.', cited: [], removed: [] });
  });
});

describe('admit', () => {
  const budgets = Budgets.parse({});
  it('uses the seed defaults', () => {
    assert.deepEqual(budgets, { max_context_tokens: 100_000, max_request_tokens: 400_000, finalization_reserve_tokens: 4_000, max_tool_calls: 8 });
  });
  it('admits a result that fits with the reserve; refuses one that does not, naming the budget', () => {
    assert.deepEqual(admit(budgets, { context_tokens: 50_000, used_request_tokens: 0 }, 40_000), { admitted: true, context_tokens: 90_000 });
    assert.deepEqual(admit(budgets, { context_tokens: 50_000, used_request_tokens: 0 }, 46_001), { admitted: false, reason: 'context_budget_exceeded', context_tokens: 96_001, limit: 100_000 });
    assert.deepEqual(admit(budgets, { context_tokens: 10_000, used_request_tokens: 390_000 }, 1_000), { admitted: false, reason: 'request_budget_exceeded', context_tokens: 11_000, limit: 400_000 });
  });
});
