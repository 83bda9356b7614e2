import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sweepStaleTempFiles, writeDurable } from '../../src/common/durable-write';
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
});
