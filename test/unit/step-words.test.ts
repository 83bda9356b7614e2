import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeOutcome, describeScope, outcomeOf, scopeOf, type StepScope } from '../../src/harness/step-words';
import { renderFallback, type ProgressSnapshot } from '../../src/harness/progress-snapshot';
import type { LoadedSnapshot } from '../../src/index/store/snapshot-store';

/** The little of a loaded snapshot that scopes read: its documents' ids and titles. */
const snapshot = { documents: [{ doc_id: 'd1', title: 'Cell Biology' }, { doc_id: 'd2', title: '光合作用' }, { doc_id: 'd3', title: 'Genetics' }] } as unknown as LoadedSnapshot;

describe('steps in plain words', () => {
  it('a scope over documents always says how many of how many, in English and Chinese', () => {
    const all = scopeOf('scan_term', { term: 'Transformer' }, snapshot);
    assert.deepEqual(all.documents, { count: 3, of: 3, all: true, titles: [] });
    assert.equal(describeScope(all, 'en'), 'Scanning all 3 documents for “Transformer”');
    assert.equal(describeScope(all, 'zh'), '在全部 3 篇文档中逐字扫描“Transformer”');
    const one = scopeOf('search_blocks', { query: 'osmosis', doc_ids: ['d1'] }, snapshot);
    assert.equal(describeScope(one, 'en'), 'Searching “Cell Biology” for “osmosis”');
    const section = scopeOf('list_blocks', { doc_id: 'd2', section_paths: ['光合作用 > 暗反应'] }, snapshot);
    assert.equal(describeScope(section, 'zh'), '读取《光合作用》的 § 暗反应');
    assert.equal(describeScope(scopeOf('list_blocks', { doc_id: 'd1' }, snapshot), 'en'), 'Reading all of “Cell Biology”');
    assert.equal(describeScope(scopeOf('get_outline', { doc_ids: ['d1', 'd3'] }, snapshot), 'en'), 'Reading the outline of “Cell Biology”, “Genetics”');
    assert.equal(describeScope(scopeOf('list_documents', {}, snapshot), 'en'), 'Listing documents');
  });

  it('a scoped question counts within its scope: “of” is the scope, all of it reads as the scope', () => {
    const scope = ['d1', 'd3'];
    const whole = scopeOf('search_blocks', { query: 'x', doc_ids: ['d1', 'd3'] }, snapshot, scope);
    assert.deepEqual(whole.documents, { count: 2, of: 2, all: true, titles: ['Cell Biology', 'Genetics'], scoped: true });
    assert.equal(describeScope(whole, 'en'), 'Searching the 2 documents in scope for “x”');
    assert.equal(describeScope(whole, 'zh'), '在范围内的 2 篇文档中搜索“x”');
    const one = scopeOf('scan_term', { term: 'x', doc_ids: ['d3'] }, snapshot, scope);
    assert.deepEqual(one.documents, { count: 1, of: 2, all: false, titles: ['Genetics'], scoped: true });
    assert.equal(describeScope(one, 'en'), 'Scanning “Genetics” for “x”');
    assert.deepEqual(scopeOf('list_documents', {}, snapshot, ['d2']).documents, { count: 1, of: 1, all: true, titles: ['光合作用'], scoped: true });
    // Unscoped, nothing changed: no `scoped` field, the whole collection counted.
    assert.deepEqual(scopeOf('scan_term', { term: 'x' }, snapshot).documents, { count: 3, of: 3, all: true, titles: [] });
  });

  it('an outcome says what was found, or that nothing was, or why it was left out', () => {
    const scan = outcomeOf({ term: 'x', hits: [{ doc_id: 'd1', count: 3 }, { doc_id: 'd1', count: 14 }, { doc_id: 'd2', count: 0 }], total_count: 17, token_estimate: 1 });
    assert.equal(describeOutcome('scan_term', scan, 'en'), '17 hits in 3 blocks');
    assert.equal(scan.hit_documents, 2);
    assert.equal(describeOutcome('scan_term', outcomeOf({ term: 'x', hits: [], total_count: 0, empty_reason: 'no_match', token_estimate: 1 }), 'zh'), '0 处命中');
    assert.equal(describeOutcome('search_blocks', outcomeOf({ blocks: [{}, {}], token_estimate: 1 }), 'en'), '2 blocks');
    assert.equal(describeOutcome('list_blocks', outcomeOf({ blocks: [{}], token_estimate: 1 }, { reason: 'context_budget_exceeded', tokens: 5000 }), 'en'), 'not added: the result (5000 tokens) did not fit the context budget');
    assert.equal(describeOutcome('search_blocks', outcomeOf({ error: { code: 'upstream_unavailable', message: 'embedding down', retryable: false }, token_estimate: 1 }), 'en'), 'failed: embedding down');
  });

  it('an error outcome without its details (the schema allows it in a stored conversation) is "failed", not a crash (found by fuzzing)', () => {
    const o = { ...outcomeOf({ token_estimate: 1 }), kind: 'error' as const, error: null };
    assert.equal(describeOutcome('list_documents', o, 'en'), 'failed');
    assert.equal(describeOutcome('list_documents', o, 'zh'), '失败');
  });

  it('a fallback lists the checks, the sources read, what could not be checked, and why it stopped — nothing else', () => {
    const scope = (over: Partial<StepScope>): StepScope => ({ tool: 'scan_term', documents: { count: 42, of: 42, all: true, titles: [] }, sections: [], text: 'X', filters: {}, ...over });
    const p: ProgressSnapshot = {
      stop_reason: 'INFORMATION_SATURATED',
      sources: [{ ref: 'd1#b1', doc_title: 'Cell Biology', section_path: 'Cell Biology > Membranes' }],
      facts: [{ tool_call_id: 'call-1', scope: scope({}), outcome: outcomeOf({ hits: [], total_count: 0, empty_reason: 'no_match', token_estimate: 1 }) }],
      scopes_checked: ['scan_term:{"term":"X"}'],
      limitations: [{ kind: 'partial_collection', tool_call_id: null, scope: null, outcome: null, documents: ['/notes/a.pdf'] }],
    };
    assert.equal(
      renderFallback(p, 'en'),
      'No complete answer could be formed (insufficient evidence: further searches added nothing new). Checked in this run:\n- Scanning all 42 documents for “X”: 0 hits\nSources consulted: Cell Biology > Membranes\nNot checked:\n- documents that could not be indexed and were not covered: /notes/a.pdf',
    );
    assert.match(renderFallback(p, 'zh'), /^未能形成完整回答（证据不足：继续检索不再带来新信息）。本次已核查：\n- 在全部 42 篇文档中逐字扫描“X”：0 处命中\n查阅的来源：Cell Biology > Membranes\n未能核查：\n- 未能入库、未覆盖的文档：\/notes\/a\.pdf$/);
  });
});
