import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sweepStaleTempFiles, writeDurable, writeDurablePieces } from '../../src/common/durable-write';
import { tempDir } from '../helpers';

describe('durable writes', () => {
  it('sweeps only the stale temporary files a killed atomic write left, never a target or a write in progress', async () => {
    const dir = tempDir();
    await writeDurable(path.join(dir, 'sources.json'), '{}\n');
    const names = ['sources.json.1234567', 'seg-a.dqe.42', 'old.bin.7', 'fresh.json.99', 'notes.md.123', 'sources.json', 'seg-b.dqe'];
    for (const n of names.filter((x) => x !== 'sources.json')) fs.writeFileSync(path.join(dir, n), 'x');
    fs.mkdirSync(path.join(dir, 'folder.json.5'));
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const n of ['sources.json.1234567', 'seg-a.dqe.42', 'old.bin.7', 'notes.md.123', 'sources.json', 'seg-b.dqe', 'folder.json.5']) fs.utimesSync(path.join(dir, n), hourAgo, hourAgo);
    assert.equal(await sweepStaleTempFiles(dir), 3);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['folder.json.5', 'fresh.json.99', 'notes.md.123', 'seg-b.dqe', 'sources.json']);
    assert.equal(fs.readFileSync(path.join(dir, 'sources.json'), 'utf8'), '{}\n');
    assert.equal(await sweepStaleTempFiles(path.join(dir, 'missing')), 0);
  });

  it('writes a file piece by piece, reusing one buffer, and leaves the old file whole when a piece fails', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'seg-x.dqe');
    const piece = Buffer.alloc(3);
    function* pieces(fail: boolean) {
      for (let i = 0; i < 5; i++) {
        if (fail && i === 3) throw new Error('the source went away');
        piece.fill(97 + i);
        yield piece;
      }
    }
    await writeDurablePieces(file, pieces(false));
    assert.equal(fs.readFileSync(file, 'latin1'), 'aaabbbcccdddeee');
    await assert.rejects(writeDurablePieces(file, pieces(true)), /the source went away/);
    assert.equal(fs.readFileSync(file, 'latin1'), 'aaabbbcccdddeee', 'the earlier file is untouched');
    assert.deepEqual(fs.readdirSync(dir), ['seg-x.dqe'], 'no temporary file is left behind');
    // The temporary name is one sweepStaleTempFiles recognises, should a crash leave it.
    const names: string[] = [];
    const watcher = fs.watch(dir, (_, name) => name && names.push(String(name)));
    await writeDurablePieces(path.join(dir, 'seg-y.dqe'), pieces(false));
    await new Promise((r) => setTimeout(r, 50));
    watcher.close();
    assert.ok(names.some((n) => /^seg-y\.dqe\.\d+$/.test(n)), names.join(', '));
  });
});
