import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { readActiveId } from '../../src/index/store/snapshot-store';
import { assertStoreSound, runCli, strayTempFiles } from '../crash/crash-helpers';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';

/**
 * A disk that refuses writes (issue 24 item 2): full (ENOSPC), failing (EIO) or read-only (EROFS),
 * injected at the file layer of the CLI's child process by test/crash/fs-faults.mjs, for the data
 * directory only. A question is still answered (its trace marked partial, with a warning); a build or
 * a registry change fails in words and changes nothing; once the disk takes writes again, everything
 * works without a repair step. (The longer loops, ENOSPC / EIO at 12 moments of a build and the SIGKILL
 * loops, are in test/crash.)
 */
describe('a disk that refuses writes', () => {
  let server: FakeOpenAIServer;
  let env: Record<string, string>;
  let store: string;
  before(async () => {
    server = await new FakeOpenAIServer({ auto: true }).start();
    const home = tempDir('docqa-refusals-');
    store = path.join(home, 'store');
    const notes = tempDir('docqa-refusals-notes-');
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), `# Note ${i}\n\nThe keyword marker4${i} appears here with shared words about cells.\n`);
    env = { PATH: process.env.PATH ?? '', HOME: home, DOCQA_HOME: store, DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake', DOCQA_EMBEDDING_DIMENSIONS: '16', DOCQA_CHAT_BASE_URL: server.baseURL };
    assert.equal((await runCli(env, ['sources', 'add', notes])).code, 0);
    const first = await runCli(env, ['index', '--yes', '--json']);
    assert.equal(first.code, 0, first.stderr);
  });
  after(() => server.close());

  for (const code of ['ENOSPC', 'EIO'] as const) {
    it(`${code} while a question writes its trace or a source is added: the answer is given, the trace marked partial; the registry is left as it was`, async () => {
      const fault = { DOCQA_FS_FAULT: code, DOCQA_FS_FAULT_UNDER: store };
      const strays = strayTempFiles(store);
      const r = await runCli(env, ['ask', 'Where does marker42 appear?', '--json'], { preload: true, extraEnv: fault });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { release: { status: string }; answer: string; trace: { partial: boolean; writer_error: string } };
      assert.deepEqual([out.release.status, out.trace.partial], ['SUCCESS', true]);
      assert.match(out.answer, /marker42/);
      assert.match(out.trace.writer_error, new RegExp(code));
      assert.match(r.stderr, /warning: the trace of \S+ is partial .*; the answer is unaffected/);
      const sourcesBefore = fs.readFileSync(path.join(store, 'sources.json'), 'utf8');
      const other = tempDir('docqa-crashloop-other-');
      const add = await runCli(env, ['sources', 'add', other], { preload: true, extraEnv: fault });
      assert.equal(add.code, 1);
      assert.match(add.stderr, new RegExp(`cannot write .*sources\\.json: ${code}`));
      assert.equal(fs.readFileSync(path.join(store, 'sources.json'), 'utf8'), sourcesBefore);
      await assertStoreSound(store, 'marker42', code);
      assert.deepEqual(strayTempFiles(store).filter((f) => !strays.includes(f)), []);
      recordTrials({ area: 'disk', fault: `${code} while a question writes its trace`, trials: 1, outcome: "the answer is given; that run's own trace is marked partial with a warning (nothing earlier is touched)" }, __filename);
      recordTrials({ area: 'disk', fault: `${code} while a source is added`, trials: 1, outcome: 'exit 1, "cannot write …sources.json"; the registry byte for byte as it was' }, __filename);
    });
  }

  it('a read-only data directory: questions are answered (trace marked partial); a build or a registry change is refused in words; nothing changes', async () => {
    const ro = { DOCQA_FS_FAULT: 'EROFS', DOCQA_FS_FAULT_UNDER: store };
    const activeBefore = await readActiveId(new DataDir(store));
    const files = fs.readdirSync(store, { recursive: true }).length;
    const ask = await runCli(env, ['ask', 'Where does marker42 appear?', '--json'], { preload: true, extraEnv: ro });
    assert.equal(ask.code, 0, ask.stderr);
    assert.equal((JSON.parse(ask.stdout) as { release: { status: string } }).release.status, 'SUCCESS');
    const build = await runCli(env, ['index', '--yes'], { preload: true, extraEnv: ro });
    assert.equal(build.code, 1);
    assert.match(build.stderr, /^docqa: cannot write to data directory .* \(build\.lock\): the data directory is on a read-only file system/m);
    const add = await runCli(env, ['sources', 'add', tempDir('docqa-crashloop-ro-')], { preload: true, extraEnv: ro });
    assert.equal(add.code, 1);
    assert.match(add.stderr, /^docqa: cannot write to data directory .* \(store\.lock\): the data directory is on a read-only file system/m);
    assert.equal(await readActiveId(new DataDir(store)), activeBefore);
    assert.equal(fs.readdirSync(store, { recursive: true }).length, files, 'nothing was written');
    await assertStoreSound(store, 'marker42', 'read-only');
    // Writable again: everything works without a repair step.
    assert.equal((await runCli(env, ['index', '--yes', '--json'])).code, 0);
    recordTrials({ area: 'disk', fault: 'a read-only data directory (EROFS): ask, index, sources add', trials: 3, outcome: 'ask answers (trace partial); index and sources add refused in words; nothing written; writable again, the next build works' }, __filename);
  });
});
