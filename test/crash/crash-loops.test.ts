import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, after, before, describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { readActiveId } from '../../src/index/store/snapshot-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { type Run, assertStoreSound, mulberry32, runCli, strayTempFiles } from './crash-helpers';

/**
 * Crash safety (issue 24 item 2), opt-in (`npm run test:crash`, about 3 minutes; .ci/run runs it):
 * the built CLI SIGKILLed at random moments, 50 times each, during a snapshot build, an activation, a
 * question (its trace write) and a registry write; and ENOSPC / EIO at 12 moments of a build, through
 * a preload in the child process. After each: every file parses, the active snapshot loads and
 * answers, and the next run, unkilled, succeeds by itself. (The quick refusals — a question or a
 * source on a full, failing or read-only disk — are in test/integration/disk-refusals.test.ts.)
 */
const ROUNDS = 50;

describe('crash safety: SIGKILL loops and refused writes', () => {
  let server: FakeOpenAIServer;
  let env: Record<string, string>;
  let store: string;
  let notes: string;
  before(async () => {
    server = await new FakeOpenAIServer({ auto: true }).start();
    const home = tempDir('docqa-crashloop-');
    store = path.join(home, 'store');
    notes = tempDir('docqa-crashloop-notes-');
    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), `# Note ${i}\n\nThe keyword marker${i} appears here with shared words about cells.\n`);
    env = { PATH: process.env.PATH ?? '', HOME: home, DOCQA_HOME: store, DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake', DOCQA_EMBEDDING_DIMENSIONS: '16', DOCQA_CHAT_BASE_URL: server.baseURL };
    assert.equal((await runCli(env, ['sources', 'add', notes])).code, 0);
    const first = await runCli(env, ['index', '--yes', '--json']);
    assert.equal(first.code, 0, first.stderr);
  });
  after(() => server.close());

  /**
   * `rounds` runs of `args(round)`, each SIGKILLed at a random moment within how long an unkilled run
   * takes here (measured first), checked after each; then one unkilled run that must succeed.
   */
  async function killLoop(t: TestContext, name: string, seed: number, args: (round: number) => string[], before: (round: number) => void = () => {}): Promise<{ killed: number; finished: Run }> {
    const rand = mulberry32(seed);
    before(-1);
    const timing = await runCli(env, args(-1));
    assert.equal(timing.code, 0, `${name}: ${timing.stderr}`);
    let killed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      before(round);
      const r = await runCli(env, args(round), { killAfterMs: Math.floor(rand() * timing.ms) });
      if (r.signal === 'SIGKILL') killed++;
      else assert.equal(r.code, 0, `${name} round ${round}: ${r.stderr}`);
      await assertStoreSound(store, 'marker42', `${name} round ${round}`);
    }
    before(ROUNDS);
    const finished = await runCli(env, args(ROUNDS));
    assert.equal(finished.code, 0, `${name}: the run after the kills recovers by itself: ${finished.stderr}`);
    await assertStoreSound(store, 'marker42', `${name} after`);
    // Kills land from process start to the end of the work: some must have stopped it mid-way.
    assert.ok(killed >= ROUNDS / 3, `${name}: only ${killed} of ${ROUNDS} runs were killed`);
    // A kill inside an atomic write leaves its temporary file (name.json.<digits>) beside the whole target.
    t.diagnostic(`${name}: ${killed} of ${ROUNDS} runs killed before they finished; temporary files left so far: ${strayTempFiles(store).length}`);
    return { killed, finished };
  }

  it(`a snapshot build, killed ${ROUNDS} times: the previous snapshot stays active; the next build finishes and leaves nothing half-built`, async (t) => {
    const { killed, finished } = await killLoop(t, 'build', 20261201, () => ['index', '--yes', '--json'], (round) => {
      // Something new to embed each round, so the build is doing real work when it dies.
      fs.writeFileSync(path.join(notes, 'n1.md'), `# Note 1\n\nRevision ${round}: the keyword marker1 moved here.\n`);
    });
    const summary = JSON.parse(finished.stdout) as { snapshot_id: string; documents: number; activated: boolean };
    assert.deepEqual([summary.documents, summary.activated], [60, true]);
    assert.equal(await readActiveId(new DataDir(store)), summary.snapshot_id);
    assert.deepEqual(fs.readdirSync(path.join(store, 'snapshots')).filter((n) => /\.(building|deleting)$/.test(n)), []);
    recordTrials({ area: 'crash', fault: 'SIGKILL during docqa index (a changed note each round)', trials: ROUNDS, outcome: `${killed} killed mid-way; the previous snapshot stays active and answers; the next build finishes, nothing half-built left` }, __filename);
  });

  it(`an activation, killed ${ROUNDS} times: the pointer always names one of the two snapshots, whole`, async (t) => {
    fs.writeFileSync(path.join(notes, 'n2.md'), '# Note 2\n\nA second snapshot: the keyword marker2 stays.\n');
    assert.equal((await runCli(env, ['index', '--yes', '--json'])).code, 0);
    const list = JSON.parse((await runCli(env, ['snapshots', '--json'])).stdout) as Array<{ id: string; state: string }>;
    const ids = list.filter((s) => s.state === 'ready').slice(0, 2).map((s) => s.id);
    assert.equal(ids.length, 2);
    const { killed } = await killLoop(t, 'activate', 20261202, (round) => ['snapshots', 'activate', ids[(round + 2) % 2]!]);
    assert.equal(await readActiveId(new DataDir(store)), ids[0], 'the last, unkilled activation (round 50) holds');
    recordTrials({ area: 'crash', fault: 'SIGKILL during docqa snapshots activate', trials: ROUNDS, outcome: `${killed} killed mid-way; active.json always whole, naming one of the two; the last activation holds` }, __filename);
  });

  it(`a question, killed ${ROUNDS} times while it writes its trace: traces still list and show; the next question is traced whole`, async (t) => {
    const { killed, finished } = await killLoop(t, 'ask', 20261203, () => ['ask', 'Where does marker42 appear?', '--json', '--trace', 'full']);
    const out = JSON.parse(finished.stdout) as { run_id: string; release: { status: string }; trace: { partial: boolean } };
    assert.deepEqual([out.release.status, out.trace.partial], ['SUCCESS', false]);
    const listed = await runCli(env, ['trace', 'list', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const runs = JSON.parse(listed.stdout) as Array<{ run_id: string }>;
    assert.ok(runs.some((r) => r.run_id === out.run_id));
    // Every run that left anything behind can still be shown.
    for (const r of runs.slice(0, 12)) assert.equal((await runCli(env, ['trace', 'show', r.run_id])).code, 0, r.run_id);
    recordTrials({ area: 'crash', fault: 'SIGKILL during docqa ask --trace full (the trace write)', trials: ROUNDS, outcome: `${killed} killed mid-way; the killed run's own trace is partial or absent (nothing earlier is touched); traces list and show; the next question is traced whole` }, __filename);
  });

  it(`the source registry, killed ${ROUNDS} times while a source is added or removed: it always reads whole, the first source kept`, async (t) => {
    const extra = tempDir('docqa-crashloop-extra-');
    fs.writeFileSync(path.join(extra, 'extra.md'), '# Extra\n\nAn extra folder.\n');
    // Remove when the last run got as far as adding it, else add: every unkilled run has work to do.
    const registered = () => fs.existsSync(path.join(store, 'sources.json')) && fs.readFileSync(path.join(store, 'sources.json'), 'utf8').includes(JSON.stringify(extra));
    const { killed } = await killLoop(t, 'sources', 20261204, () => (registered() ? ['sources', 'remove', extra] : ['sources', 'add', extra]));
    const sources = JSON.parse((await runCli(env, ['sources', 'list', '--json'])).stdout) as Array<{ path: string }>;
    assert.ok(sources.some((s) => s.path === notes), 'the first source is still there');
    recordTrials({ area: 'crash', fault: 'SIGKILL during docqa sources add / remove', trials: ROUNDS, outcome: `${killed} killed mid-way; sources.json always whole; the first source kept` }, __filename);
  });

  it('the temporary files those kills left beside atomic writes are swept by the next build once stale', async () => {
    // Kills land inside a write only sometimes: two more, as a killed write leaves them (a registry's,
    // a cache segment's), make sure there is something to sweep in both places.
    const family = fs.readdirSync(path.join(store, 'embeddings'))[0]!;
    fs.writeFileSync(path.join(store, 'sources.json.3141592653'), '{"formatVersion": 1, "sour');
    fs.writeFileSync(path.join(store, 'embeddings', family, 'seg-mx000000-deadbeef.dqe.2718281828'), Buffer.alloc(4096));
    // Stale means untouched for 10 minutes: the test ages them instead of waiting.
    const strays = strayTempFiles(store);
    assert.ok(strays.filter((f) => !f.startsWith('traces')).length >= 2);
    const old = new Date(Date.now() - 3_600_000);
    for (const f of strays) fs.utimesSync(path.join(store, f), old, old);
    const r = await runCli(env, ['index', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(strayTempFiles(store).filter((f) => !f.startsWith('traces')), [], `left: ${strays.join(', ')}`);
    recordTrials({ area: 'crash', fault: 'temporary files left by killed atomic writes', trials: strays.length, outcome: 'swept by the next build once stale' }, __filename);
  });

  for (const code of ['ENOSPC', 'EIO'] as const) {
    it(`${code} at the file layer, at 12 different moments of a build: a clear error, the active snapshot untouched, the next build recovers`, async () => {
      const activeBefore = await readActiveId(new DataDir(store));
      const strays = strayTempFiles(store);
      let refused = 0;
      for (const [i, after] of [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144].entries()) {
        fs.writeFileSync(path.join(notes, 'n3.md'), `# Note 3\n\n${code} round ${i}: the keyword marker3 moved.\n`);
        const r = await runCli(env, ['index', '--yes', '--json'], { preload: true, extraEnv: { DOCQA_FS_FAULT: code, DOCQA_FS_FAULT_UNDER: store, DOCQA_FS_FAULT_AFTER: String(after) } });
        if (r.code !== 0) {
          refused++;
          assert.equal(r.code, 1, r.stderr);
          assert.match(r.stderr, new RegExp(`^docqa: .*${code}`, 'm'));
          assert.equal(await readActiveId(new DataDir(store)), activeBefore, `${code} after ${after}: the previous snapshot stays active`);
        }
        await assertStoreSound(store, 'marker42', `${code} after ${after}`);
      }
      assert.ok(refused >= 6, `only ${refused} of 12 builds met the fault`);
      const healthy = await runCli(env, ['index', '--yes', '--json']);
      assert.equal(healthy.code, 0, healthy.stderr);
      assert.equal((JSON.parse(healthy.stdout) as { activated: boolean }).activated, true);
      assert.deepEqual(fs.readdirSync(path.join(store, 'snapshots')).filter((n) => /\.(building|deleting)$/.test(n)), []);
      assert.deepEqual(strayTempFiles(store).filter((f) => !strays.includes(f)), [], 'a refused atomic write removes its temporary file');
      recordTrials({ area: 'disk', fault: `${code} at the file layer during a build, at 12 moments`, trials: 12, outcome: `${refused} refused with exit 1 and the error in words, the active snapshot untouched; the next build recovers; no temporary file left` }, __filename);
    });
  }
});
