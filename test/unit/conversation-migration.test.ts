import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CONVERSATION_FORMAT_VERSION } from '../../src/shared/conversation';
import { StoredConversation, upgradeConversation } from '../../src/app/conversations/conversation-migration';
import { fixture } from '../helpers';

/** A conversation written by the first release (formatVersion 1: steps without words), kept in the v1 data-directory fixture. */
function v1File(): unknown {
  const root = fixture('datadir-v1', 'data', 'conversations');
  const ws = fs.readdirSync(root)[0]!;
  const file = fs.readdirSync(path.join(root, ws)).find((f) => f.endsWith('.json'))!;
  return JSON.parse(fs.readFileSync(path.join(root, ws, file), 'utf8'));
}

describe('conversation files of version 1 stay readable', () => {
  it('a version 1 file reads as the current version, each step in its tool’s words, the same words a run writes now', () => {
    const old = v1File() as { formatVersion: number };
    assert.equal(old.formatVersion, 1);
    const c = StoredConversation.parse(old);
    assert.equal(c.formatVersion, CONVERSATION_FORMAT_VERSION);
    const step = c.turns[0]!.steps[0]!;
    assert.deepEqual(step.scope.words, { en: 'Searching all 2 documents for “What does the cell membrane do?”', zh: '在全部 2 篇文档中搜索“What does the cell membrane do?”' });
    assert.deepEqual(step.outcome!.words, { en: '5 blocks', zh: '5 个块' });
    assert.deepEqual(step.outcome!.tally?.many.en, 'searched {n} ways');
    const fact = c.turns[0]!.result!.progress.facts[0]!;
    assert.deepEqual(fact.scope, step.scope, 'the result’s facts get the same words as the steps');
    assert.deepEqual(fact.outcome, step.outcome);
  });

  it('errors and refused results get the shared words; a tool no longer offered is named; a current file is left as it is', () => {
    const s = { tool: 'scan_term', documents: { count: 3, of: 3, all: true, titles: [] }, sections: [], text: 'x', filters: {} };
    const o = { kind: 'ok', blocks: 0, hits: 0, hit_blocks: 0, hit_documents: 0, documents: 0, sections: 0, empty_reason: null, error: null, not_admitted: null };
    const turn = (steps: unknown[]) => ({ turn_id: 't', question: 'q', lang: 'en', asked_at: '2025-01-01T00:00:00.000Z', state: 'done', run_id: null, snapshot_id: null, prompt_bundle: null, steps, result: null, error: null });
    const steps = [
      { tool_call_id: 'c1', tool: 'scan_term', scope: s, outcome: { ...o, kind: 'error', error: { code: 'scope_not_found', message: 'unknown doc_id: d9' } }, blocks: [] },
      { tool_call_id: 'c2', tool: 'scan_term', scope: s, outcome: { ...o, kind: 'not_admitted', hits: 4, hit_blocks: 2, not_admitted: { reason: 'context_budget_exceeded', tokens: 9000 } }, blocks: [] },
      { tool_call_id: 'c3', tool: 'old_tool', scope: { ...s, tool: 'old_tool' }, outcome: null, blocks: [] },
    ];
    const c = StoredConversation.parse({ formatVersion: 1, id: 'c', workspace: 'w', title: '', created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z', turns: [turn(steps)] });
    const [err, refused, old] = c.turns[0]!.steps;
    assert.equal(err!.outcome!.words.en, 'failed: unknown doc_id: d9');
    assert.equal(refused!.outcome!.words.en, 'not added: the result (9000 tokens) did not fit the context budget');
    assert.equal(refused!.outcome!.hits, 4);
    assert.equal(refused!.scope.words.en, 'Scanning all 3 documents for “x”');
    assert.deepEqual(old!.scope.words, { en: 'old_tool', zh: 'old_tool' });
    const current = { ...c, title: 'now' };
    assert.equal(upgradeConversation(current), current);
  });
});
