import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDir, withStoreLock } from '../../src/index/data-dir';
import { tempDir } from '../helpers';

describe('data directory locks', () => {
  it('two holders of the same lock never overlap; the second waits for the first', async () => {
    const dir = new DataDir(tempDir());
    const events: string[] = [];
    const hold = (name: string, ms: number) =>
      withStoreLock(
        dir,
        async () => {
          events.push(`${name} in`);
          await new Promise((r) => setTimeout(r, ms));
          events.push(`${name} out`);
        },
        'build',
      );
    await Promise.all([hold('a', 150), hold('b', 10)]);
    assert.deepEqual(events, ['a in', 'a out', 'b in', 'b out']);
    assert.equal(fs.existsSync(path.join(dir.root, 'build.lock')), false, 'released');
  });

  it('different locks do not wait for each other', async () => {
    const dir = new DataDir(tempDir());
    const order: string[] = [];
    await withStoreLock(
      dir,
      async () => {
        await withStoreLock(dir, async () => order.push('store inside build'), 'store');
        order.push('build');
      },
      'build',
    );
    assert.deepEqual(order, ['store inside build', 'build']);
  });

  // A fresh lock of a live owner is only taken over once stale (10 s without refresh); the timeout
  // fails the test if the dead owner's lock were waited out instead of taken over.
  it('a lock left by a process that died is taken over at once', { timeout: 8000 }, async () => {
    const dir = new DataDir(tempDir());
    fs.mkdirSync(path.join(dir.root, 'build.lock'), { recursive: true });
    fs.writeFileSync(path.join(dir.root, 'build.lock.owner'), JSON.stringify({ pid: 999_999, host: os.hostname() }));
    const owner = await withStoreLock(dir, async () => JSON.parse(fs.readFileSync(path.join(dir.root, 'build.lock.owner'), 'utf8')) as { pid: number }, 'build');
    assert.equal(owner.pid, process.pid);
  });
});
