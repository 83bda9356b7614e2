import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusView } from '../../src/vscode/status-model';

/** vscode.l10n.t without translations: {0}… replaced by the arguments. */
const t = (m: string, ...args: Array<string | number>) => m.replace(/\{(\d+)\}/g, (_x, i: string) => String(args[Number(i)]));

describe('the status bar text, from application-layer state', () => {
  it('says what the knowledge base is: none, ready, partial with the failures, keyword-only', () => {
    assert.equal(statusView({ snapshot: null, build: null }, t).text, '$(book) DocQA: no index');
    assert.equal(statusView({ snapshot: { state: 'ready', failed: 0, keywordOnly: false }, build: null }, t).text, '$(check) DocQA: ready');
    assert.equal(statusView({ snapshot: { state: 'ready', failed: 0, keywordOnly: true }, build: null }, t).text, '$(check) DocQA: ready · keyword-only');
    const partial = statusView({ snapshot: { state: 'ready_partial', failed: 2, keywordOnly: false }, build: null }, t);
    assert.equal(partial.text, '$(warning) DocQA: partial, 2 failed');
    assert.match(partial.tooltip, /^2 documents could not be indexed/);
  });

  it('a build in progress or paused takes over, with its percentage', () => {
    const ready = { state: 'ready' as const, failed: 0, keywordOnly: false };
    assert.equal(statusView({ snapshot: ready, build: { state: 'running', phase: 'embed', done: 42, total: 100 } }, t).text, '$(sync~spin) DocQA: building 42%');
    assert.equal(statusView({ snapshot: null, build: { state: 'running', phase: 'ingest', done: 0, total: 0 } }, t).text, '$(sync~spin) DocQA: building 0%');
    const paused = statusView({ snapshot: ready, build: { state: 'paused', phase: 'ingest', done: 3, total: 9 } }, t);
    assert.equal(paused.text, '$(debug-pause) DocQA: paused');
    assert.match(paused.tooltip, /\(ingest, 3 of 9\)/);
  });
});
