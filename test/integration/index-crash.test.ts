import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { hybridSearch } from '../../src/index/search/hybrid-search';
import { listSnapshots, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { mulberry32 } from '../crash/crash-helpers';
import { CLI } from './cli';

describe('crash safety of docqa index', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer().start();
  });
  after(() => server.close());

  it('SIGKILL at random moments (20 rounds): the active snapshot always loads and answers; the next run finishes', async () => {
    const home = tempDir('docqa-crash-');
    const store = path.join(home, 'store');
    const notes = tempDir('docqa-crash-notes-');
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), `# Note ${i}\n\nThe keyword marker${i} appears here with shared words.\n`);
    const env = { PATH: process.env.PATH ?? '', HOME: home, DOCQA_HOME: store, DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake', DOCQA_EMBEDDING_DIMENSIONS: '16' };
    const run = (args: string[], killAfterMs?: number) =>
      new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const timer = killAfterMs === undefined ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        child.on('close', (code, signal) => {
          if (timer) clearTimeout(timer);
          resolve({ code, signal, stdout, stderr });
        });
      });
    assert.equal((await run(['sources', 'add', notes])).code, 0);
    const first = await run(['index', '--yes', '--json']);
    assert.equal(first.code, 0, first.stderr);
    const dir = new DataDir(store);
    const rand = mulberry32(20261130);
    // Kill moments are drawn within how long a build of one changed note takes on this machine (a fixed
    // window let fast machines finish before most kills: 3 of 20 were killed mid-way).
    fs.writeFileSync(path.join(notes, 'n199.md'), '# Note 199\n\nA timing build: the keyword marker199 stays.\n');
    const t0 = performance.now();
    const timing = await run(['index', '--yes', '--json']);
    assert.equal(timing.code, 0, timing.stderr);
    const window = performance.now() - t0;
    let killed = 0;
    for (let round = 0; round < 20; round++) {
      // Each round has something new to embed, so the build does real work when it is killed.
      fs.writeFileSync(path.join(notes, `n${round}.md`), `# Note ${round}\n\nRevision ${round}: the keyword marker${round} moved here.\n`);
      const r = await run(['index', '--yes', '--json'], Math.floor(rand() * window * 0.9));
      if (r.signal === 'SIGKILL') killed++;
      else assert.equal(r.code, 0, `round ${round}: ${r.stderr}`);
      const active = await loadActiveSnapshot(dir);
      assert.ok(active, `round ${round}: an active snapshot loads`);
      const hits = hybridSearch(active.bm25, active.vectors, 'marker150', null, 5);
      assert.equal(hits.length > 0, true, `round ${round}: the active snapshot answers`);
    }
    assert.ok(killed >= 10, `only ${killed} of 20 runs were killed mid-way`);
    // Everything a killed run embedded is in the cache: the finishing run embeds exactly the rest.
    const revisions = Array.from({ length: 20 }, (_, i) => `Revision ${i}: the keyword marker${i} moved here.`);
    const alreadyEmbedded = new Set(server.embeddedInputs);
    const remaining = revisions.filter((t) => !alreadyEmbedded.has(t));
    const sentBefore = server.embeddedInputs.length;
    const finish = await run(['index', '--yes', '--json']);
    assert.equal(finish.code, 0, finish.stderr);
    const summary = JSON.parse(finish.stdout) as { snapshot_id: string; embedded_blocks: number; documents: number };
    assert.equal(summary.documents, 200);
    assert.equal((await loadActiveSnapshot(dir))?.manifest.id, summary.snapshot_id);
    // (A text the server saw may still be re-sent: the run that asked for it can die before its cache
    // segment is written. Nothing else may be.)
    const sentAtEnd = server.embeddedInputs.slice(sentBefore);
    assert.ok(sentAtEnd.every((t) => revisions.includes(t)), `only revised notes are embedded again: ${JSON.stringify(sentAtEnd.filter((t) => !revisions.includes(t)))}`);
    assert.ok(remaining.every((t) => sentAtEnd.includes(t)));
    assert.equal(summary.embedded_blocks, sentAtEnd.length);
    assert.ok((await listSnapshots(dir)).every((m) => m.state !== 'building'), 'no half-built snapshot is left listed');
    assert.ok(!fs.readdirSync(path.join(store, 'snapshots')).some((n) => n.endsWith('.building')));
    recordTrials({ area: 'crash', fault: 'SIGKILL during docqa index, 200 notes (npm test)', trials: 20, outcome: `${killed} killed mid-way; the active snapshot always loads and answers; the next build re-embeds only the revised notes` }, __filename);
  });
});
