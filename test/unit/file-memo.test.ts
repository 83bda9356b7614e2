import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FileMemo } from '../../src/index/ingest/file-memo';

describe('FileMemo', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-memo-'));
  const file = path.join(dir, 'registry.json');

  it('gives back what was remembered while the file is unchanged, frozen', () => {
    fs.writeFileSync(file, '{"a":1}');
    const memo = new FileMemo<{ a: number; list: number[] }>();
    const value = { a: 1, list: [1, 2] };
    memo.remember(file, value);
    assert.equal(memo.get(file), value);
    assert.ok(Object.isFrozen(value) && Object.isFrozen(value.list));
  });

  it('notices a replacement by another process even with the same size and mtime (new inode), and an in-place rewrite', () => {
    fs.writeFileSync(file, '{"a":1}');
    const memo = new FileMemo<string>();
    memo.remember(file, 'one');
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(`${file}.tmp`, '{"a":2}');
    fs.utimesSync(`${file}.tmp`, mtime, mtime);
    fs.renameSync(`${file}.tmp`, file);
    assert.equal(memo.get(file), undefined);
    memo.remember(file, 'two');
    fs.writeFileSync(file, '{"a":3}');
    fs.utimesSync(file, new Date(mtime.getTime() + 5000), new Date(mtime.getTime() + 5000));
    assert.equal(memo.get(file), undefined);
    memo.remember(file, 'three');
    fs.rmSync(file);
    assert.equal(memo.get(file), undefined);
  });

  it('keeps at most its capacity, oldest out first; typed arrays stay usable', () => {
    const memo = new FileMemo<{ keys: Uint8Array }>(2);
    const files = ['a', 'b', 'c'].map((n) => path.join(dir, n));
    for (const f of files) {
      fs.writeFileSync(f, f);
      memo.remember(f, { keys: Uint8Array.of(1, 2) });
    }
    assert.equal(memo.get(files[0]!), undefined);
    assert.deepEqual(memo.get(files[2]!)?.keys, Uint8Array.of(1, 2));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
