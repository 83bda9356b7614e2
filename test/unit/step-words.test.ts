import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderFallback, type ProgressSnapshot } from '../../src/harness/progress-snapshot';
import type { LoadedSnapshot } from '../../src/index/store/snapshot-store';
import { type Lang, type StepOutcome, type StepScope, errorOutcome, notAdmittedOutcome } from '../../src/shared/step-record';
import { describeCall, summarizeCall } from '../../src/tools/registry';
import type { ToolName, ToolPayload } from '../../src/tools/tool';

/** The little of a loaded snapshot that scopes read: its documents' ids and titles. */
const snapshot = { documents: [{ doc_id: 'd1', title: 'Cell Biology' }, { doc_id: 'd2', title: '光合作用' }, { doc_id: 'd3', title: 'Genetics' }] } as unknown as LoadedSnapshot;

/** What a request looks at, as the harness records it (the tool's own words). */
const scopeOf = (tool: ToolName, input: Record<string, unknown>, snap: LoadedSnapshot, scope?: readonly string[]) => describeCall(tool, input, { snapshot: snap, questionScope: scope });
/** The outcome of a payload as the harness records it: the tool's summary, or the budget's refusal of it. */
function outcomeOf(tool: ToolName, payload: Record<string, unknown>, notAdmitted?: { reason: string; tokens: number }): StepOutcome {
  const o = summarizeCall(tool, {}, { token_estimate: 1, ...payload } as ToolPayload, { snapshot }).outcome;
  return notAdmitted ? notAdmittedOutcome(o, notAdmitted) : o;
}
const describeScope = (s: StepScope, lang: Lang) => s.words[lang];
const describeOutcome = (o: StepOutcome, lang: Lang) => o.words[lang];
const hit = (doc_id: string, count: number) => ({ ref: `${doc_id}#b${count}`, doc_id, block_id: `b${count}`, doc_title: doc_id, source_label: 's', section_path: 'S', snippet: 'x', count });
const block = (n: number) => ({ ref: `d1#b${n}`, doc_id: 'd1', block_id: `b${n}`, doc_title: 'Cell Biology', source_label: 's', section_path: 'S', text: 'x' });

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
    const scan = outcomeOf('scan_term', { term: 'x', hits: [hit('d1', 3), hit('d1', 14), hit('d2', 0)], total_count: 17 });
    assert.equal(describeOutcome(scan, 'en'), '17 hits in 3 blocks');
    assert.equal(scan.hit_documents, 2);
    assert.equal(describeOutcome(outcomeOf('scan_term', { term: 'x', hits: [], total_count: 0, empty_reason: 'no_match' }), 'zh'), '0 处命中');
    assert.equal(describeOutcome(outcomeOf('search_blocks', { mode: 'hybrid', blocks: [block(1), block(2)] }), 'en'), '2 blocks');
    assert.equal(describeOutcome(outcomeOf('list_blocks', { doc_id: 'd1', blocks: [block(1)], total: 1 }, { reason: 'context_budget_exceeded', tokens: 5000 }), 'en'), 'not added: the result (5000 tokens) did not fit the context budget');
    assert.equal(describeOutcome(outcomeOf('search_blocks', { error: { code: 'upstream_unavailable', message: 'embedding down', retryable: false } }), 'en'), 'failed: embedding down');
  });

  it('an error outcome without its details (the schema allows it in a stored conversation) is "failed", not a crash (found by fuzzing)', () => {
    const o = errorOutcome(null);
    assert.equal(describeOutcome(o, 'en'), 'failed');
    assert.equal(describeOutcome(o, 'zh'), '失败');
  });

  it('a fallback lists the checks, the sources read, what could not be checked, and why it stopped — nothing else', () => {
    const scope = (): StepScope => scopeOf('scan_term', { term: 'X' }, { documents: Array.from({ length: 42 }, (_, i) => ({ doc_id: `d${i}`, title: `T${i}` })) } as unknown as LoadedSnapshot);
    const p: ProgressSnapshot = {
      stop_reason: 'INFORMATION_SATURATED',
      sources: [{ ref: 'd1#b1', doc_title: 'Cell Biology', section_path: 'Cell Biology > Membranes' }],
      facts: [{ tool_call_id: 'call-1', scope: scope(), outcome: outcomeOf('scan_term', { term: 'x', hits: [], total_count: 0, empty_reason: 'no_match' }) }],
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
