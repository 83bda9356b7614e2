import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TraceSummary } from '../../src/trace/trace-store';
import { TRACES_SHOWN, traceNodes } from '../../src/vscode/traces-tree-model';

/** A translator that shows which message was used: `«message|args»`. */
const t = (message: string, ...args: Array<string | number>) => `«${message}${args.length ? `|${args.join(',')}` : ''}»`;

const summary = (o: Partial<TraceSummary> = {}): TraceSummary => ({ run_id: 'r20261201T100000000Z-abcdef', started_at: '2026-12-01T10:00:00.000Z', question: 'What does the Calvin cycle make?', status: 'SUCCESS', mode: 'full', partial: false, tokens: { prompt: 1200, completion: 34 }, ...o });

describe('the Traces view model', () => {
  it('shows a run as its question, with time, release status and tokens; a click opens its trace by run id', () => {
    const [n] = traceNodes([summary()], t);
    assert.deepEqual(n, {
      id: 'trace:r20261201T100000000Z-abcdef',
      label: 'What does the Calvin cycle make?',
      description: '2026-12-01 10:00:00 · SUCCESS · «{0} tokens|1234»',
      tooltip: 'What does the Calvin cycle make?\nr20261201T100000000Z-abcdef\nSUCCESS · full\n«tokens: {0} prompt + {1} completion|1200,34»',
      icon: 'pass',
      contextValue: 'trace',
      command: { id: 'docqa.openTrace', args: ['r20261201T100000000Z-abcdef'] },
    });
  });

  it('says when a trace is incomplete or partial, and marks failures and cancellations', () => {
    const [crashed, partial, failed, cancelled, fallback] = traceNodes([summary({ question: null, status: null, started_at: null, tokens: null, partial: true, mode: null }), summary({ partial: true }), summary({ status: 'FAILED' }), summary({ status: 'CANCELLED' }), summary({ status: 'FALLBACK' })], t);
    assert.equal(crashed!.label, '«(incomplete trace)»');
    assert.equal(crashed!.description, '«incomplete» · «partial»');
    assert.equal(crashed!.icon, 'warning');
    assert.match(partial!.description, /«partial»$/);
    assert.deepEqual([failed!.icon, cancelled!.icon, fallback!.icon], ['error', 'circle-slash', 'info']);
  });

  it('shows bidi controls in a question as visible tags, in the row and its hover', () => {
    const [n] = traceNodes([summary({ question: 'why \u202eevil' })], t);
    assert.equal(n!.label, 'why ‹U+202E›evil');
    assert.ok(n!.tooltip.startsWith('why ‹U+202E›evil\n'));
  });

  it('keeps a long or multi-line question on one short line, and lists only the newest runs', () => {
    const [n] = traceNodes([summary({ question: `${'word '.repeat(40)}\n\nmore` })], t);
    assert.equal(n!.label.length, 80);
    assert.ok(n!.label.endsWith('…') && !n!.label.includes('\n'));
    const many = Array.from({ length: TRACES_SHOWN + 5 }, (_, i) => summary({ run_id: `r20261201T1000000${String(i).padStart(2, '0')}Z-abcdef` }));
    assert.equal(traceNodes(many, t).length, TRACES_SHOWN);
  });
});
