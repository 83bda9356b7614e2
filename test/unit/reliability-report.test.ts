import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderReport } from '../../scripts/reliability-report';
import type { TrialRecord } from '../reliability/trials';

const rec = (over: Partial<TrialRecord>): TrialRecord => ({ area: 'crash', fault: 'SIGKILL during a build', trials: 50, outcome: 'previous snapshot active', data_lost: 'none', test: 'test/crash/crash-loops.test.ts', ...over });

describe('RELIABILITY.md from the trial log', () => {
  it('sums the same fault across records, groups by area in a stable order and escapes table cells', () => {
    const md = renderReport(
      [rec({ area: 'soak' , fault: 'b', trials: 3 }), rec({ trials: 25 }), rec({ trials: 25 }), rec({ area: 'soak', fault: 'a | pipe', trials: 1 })],
      { commit: 'abc1234', date: '2026-12-01' },
    );
    assert.match(md, /3 faults, 54 trials in all; data lost: none\./);
    assert.match(md, /\| crash \| 1 \| 50 \| 0 \|/);
    assert.match(md, /\| soak \| 2 \| 4 \| 0 \|/);
    assert.match(md, /\| SIGKILL during a build \| 50 \| previous snapshot active \| none \|/);
    assert.match(md, /\| a \\\| pipe \| 1 \|/);
    assert.ok(md.indexOf('## crash') < md.indexOf('## soak'));
    assert.ok(md.indexOf('a \\| pipe') < md.indexOf('| b |'));
  });

  it('counts rows that lost data and says what they lost, instead of hiding them', () => {
    const md = renderReport([rec({ data_lost: 'one chat turn' }), rec({ fault: 'other', data_lost: 'one chat turn' }), rec({ fault: 'third' })], { commit: 'x', date: 'd' });
    assert.match(md, /data lost: none in 1 row; in 2 rows: one chat turn\./);
    assert.match(md, /\| crash \| 3 \| 150 \| 2 \|/);
  });
});
