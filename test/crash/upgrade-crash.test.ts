import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordTrials } from '../reliability/trials';
import { assertNextOpenCompletes, copyFixture, migrateUnderFault, statusEnv, treeHashes } from '../integration/datadir-fixture';
import { mulberry32, runCli } from './crash-helpers';

/**
 * The layout migration (src/app/upgrade) under every disk refusal and SIGKILL at random moments; the
 * sampled ENOSPC/EIO sweeps run in npm test (test/integration/upgrade-rollback.test.ts).
 */
describe('the layout migration, interrupted', () => {
  // EIO fails writes and fsyncs (about 19 of them); EROFS every change (about 47: every other one is tried).
  for (const [code, stride] of [['EIO', 1], ['EROFS', 2]] as const) {
    it(`${code} at ${stride === 1 ? 'every moment' : 'every other moment'} of the migration`, async () => {
      const failed = await migrateUnderFault(code, stride);
      assert.ok(failed >= 10, `only ${failed} moments failed`);
      recordTrials({ area: 'upgrade', fault: `${code} at ${stride === 1 ? 'each' : 'every other'} file operation of the layout migration`, trials: failed, outcome: code === 'EROFS' ? 'exit 1; old files unchanged, still layout 1; the next open migrates and sweeps the leftovers' : 'exit 1; every file and folder as it was' }, __filename);
    });
  }

  it('SIGKILL at 30 random moments of the migration', async () => {
    const random = mulberry32(248);
    // Kill moments within how long an unkilled upgrade takes here (measured first): fixed delays were all
    // too late on an idle machine (2 of 30 killed) and all early on a loaded one. The first 30% is mostly
    // Node starting, so the moments are drawn from the rest.
    const timing = await runCli(statusEnv(copyFixture().data), ['data', 'status']);
    assert.equal(timing.code, 0, timing.stderr);
    let killed = 0;
    for (let i = 0; i < 30; i++) {
      const { data } = copyFixture();
      const hashes = treeHashes(data);
      const r = await runCli(statusEnv(data), ['data', 'status'], { killAfterMs: Math.floor(timing.ms * (0.3 + 0.7 * random())) });
      if (r.signal === 'SIGKILL') killed++;
      const now = treeHashes(data);
      for (const [rel, hash] of hashes) assert.equal(now.get(rel), hash, `round ${i}: ${rel} changed`);
      await assertNextOpenCompletes(data);
    }
    assert.ok(killed >= 10, `only ${killed} of 30 runs were killed before they finished`);
    recordTrials({ area: 'upgrade', fault: 'SIGKILL during the layout migration', trials: 30, outcome: `${killed} killed mid-way; old files unchanged each time; the next open migrated, no half-made backup left` }, __filename);
  });
});
