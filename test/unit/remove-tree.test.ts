import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SMALL_FILE_BYTES } from '../../src/common/durable-write';
import { removeTree } from '../../src/index/store/remove-tree';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-rm-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('removeTree', () => {
  it('removes a snapshot-shaped folder: small files, hard links whose other name survives intact, large last links', async () => {
    const shared = path.join(root, 'older', 'vectors.f32');
    fs.mkdirSync(path.dirname(shared), { recursive: true });
    const bytes = Buffer.alloc(SMALL_FILE_BYTES + 8, 7);
    fs.writeFileSync(shared, bytes);
    const doomed = path.join(root, 'snap');
    fs.mkdirSync(path.join(doomed, 'segments', 'g1'), { recursive: true });
    fs.mkdirSync(path.join(doomed, 'segments', 'g2'), { recursive: true });
    fs.writeFileSync(path.join(doomed, 'manifest.json'), '{}');
    fs.linkSync(shared, path.join(doomed, 'segments', 'g1', 'vectors.f32'));
    fs.writeFileSync(path.join(doomed, 'segments', 'g2', 'vectors.f32'), Buffer.alloc(SMALL_FILE_BYTES + 8, 1));
    fs.writeFileSync(path.join(doomed, 'segments', 'g2', 'documents.json'), '[]');
    await removeTree(doomed);
    assert.equal(fs.existsSync(doomed), false);
    assert.deepEqual(fs.readFileSync(shared), bytes, 'the other link keeps the data');
    assert.equal(fs.statSync(shared).nlink, 1);
  });

  it('is a no-op for a folder that is not there', async () => {
    await removeTree(path.join(root, 'missing'));
  });
});
