import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEval } from '../../src/eval/eval-run';
import type { GoldCase } from '../../src/eval/goldset';

const cases = [
  { id: 'a', question: 'A?', expect: { status: 'SUCCESS' } },
  { id: 'b', question: 'B?', expect: { status: 'SUCCESS' } },
] as unknown as GoldCase[];
const goldset = { path: '/gold.jsonl', sha256: '0'.repeat(64) };

describe('running an evaluation', () => {
  it('records a run that throws as a run_error and goes on with the next', async () => {
    const record = await runEval({ cases, repeat: 1, goldset, runOne: async (c) => Promise.reject(new Error(`${c.id} broke`)) });
    assert.deepEqual(record.cases.map((c) => c.runs[0]!.failures), [[{ type: 'run_error', detail: 'a broke' }], [{ type: 'run_error', detail: 'b broke' }]]);
  });

  it('stops at cancellation instead of recording the cancelled and remaining runs as failures (the Cancel of the progress notification)', async () => {
    const abort = new AbortController();
    const ran: string[] = [];
    const done = runEval({
      cases,
      repeat: 2,
      goldset,
      signal: abort.signal,
      onRun: (id, r) => ran.push(`${id}/${r}`),
      runOne: async (c, r) => {
        if (c.id === 'a' && r === 2) abort.abort();
        if (abort.signal.aborted) throw abort.signal.reason;
        throw new Error('the model is down');
      },
    });
    await assert.rejects(done, { name: 'AbortError' });
    assert.deepEqual(ran, ['a/1'], 'nothing after the cancelled run');
  });
});
