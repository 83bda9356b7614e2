import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCitations } from '../../src/harness/citations';

describe('checkCitations', () => {
  const citable = new Set(['d1#b1', 'd2#b7']);
  it('keeps refs whose full text the model saw, removes and reports the others', () => {
    const r = checkCitations('光反应在类囊体膜上进行【来源:d1#b1】。卡尔文循环在基质中【来源:d9#bX】。两者相连【来源:d1#b1, d3#b3；d2#b7】。', { citable });
    assert.equal(r.answer, '光反应在类囊体膜上进行【来源:d1#b1】。卡尔文循环在基质中。两者相连【来源:d1#b1, d2#b7】。');
    assert.deepEqual(r.cited, ['d1#b1', 'd2#b7']);
    assert.deepEqual(r.removed, [
      { ref: 'd9#bX', reason: 'not_returned' },
      { ref: 'd3#b3', reason: 'not_returned' },
    ]);
  });
  it('a block scan_term only located (a snippet) is not citable, nor one in a result the budget refused; each says why', () => {
    const r = checkCitations('A【来源:d5#b1】 B【来源:d6#b2】 C【来源:d1#b1】', { citable, located: new Set(['d5#b1']), refused: new Set(['d6#b2']) });
    assert.equal(r.answer, 'A B C【来源:d1#b1】');
    assert.deepEqual(r.removed, [
      { ref: 'd5#b1', reason: 'snippet_only' },
      { ref: 'd6#b2', reason: 'not_admitted' },
    ]);
  });
  it('accepts a full-width colon and spaces; leaves text without markers untouched', () => {
    assert.deepEqual(checkCitations('A【来源： d2#b7 】', { citable }), { answer: 'A【来源:d2#b7】', cited: ['d2#b7'], removed: [] });
    assert.deepEqual(checkCitations('No sources here.', { citable }), { answer: 'No sources here.', cited: [], removed: [] });
  });
});
