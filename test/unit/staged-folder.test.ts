import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SMALL_FILE_BYTES } from '../../src/common/durable-write';
import { StagedFolder } from '../../src/index/store/staged-folder';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-staged-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('staged folder', () => {
  it('writes small and large files (nested folders made on the way) with their exact bytes, and syncs them', async () => {
    const staged = new StagedFolder(path.join(root, 'snap.building'));
    const large = new Uint8Array(SMALL_FILE_BYTES + 12345).map((_, i) => (i * 31) & 0xff);
    await staged.write(path.join(staged.root, 'manifest.json'), '{"a":"光合作用"}\n');
    await staged.write(path.join(staged.root, 'segments', 'g1', 'vectors.f32'), large);
    // Rewriting a file in place (the manifest is written at the start and the end of a build).
    await staged.write(path.join(staged.root, 'manifest.json'), '{"b":1}\n');
    await staged.sync();
    assert.equal(fs.readFileSync(path.join(staged.root, 'manifest.json'), 'utf8'), '{"b":1}\n');
    assert.deepEqual(new Uint8Array(fs.readFileSync(path.join(staged.root, 'segments', 'g1', 'vectors.f32'))), large);
  });

  it('replaces a file outside the folder only once everything is synced, then says so', async () => {
    const target = path.join(root, 'documents.json');
    fs.writeFileSync(target, 'old');
    const staged = new StagedFolder(path.join(root, 'snap.building'));
    let moved = false;
    await staged.writeAndMoveOut('registry.json', 'new', target, () => (moved = true));
    assert.equal(fs.readFileSync(target, 'utf8'), 'old', 'untouched until the sync');
    assert.equal(moved, false);
    await staged.sync();
    assert.equal(fs.readFileSync(target, 'utf8'), 'new');
    assert.equal(moved, true);
    assert.equal(fs.existsSync(path.join(staged.root, 'registry.json')), false);
  });

  it('fails the sync when a file it wrote has gone (it never reports durable what is not there)', async () => {
    const staged = new StagedFolder(path.join(root, 'snap.building'));
    await staged.write(path.join(staged.root, 'x.json'), '{}');
    fs.rmSync(path.join(staged.root, 'x.json'));
    await assert.rejects(staged.sync(), /ENOENT/);
  });

  it('refuses a folder outside itself', () => {
    const staged = new StagedFolder(path.join(root, 'snap.building'));
    assert.throws(() => staged.mkdir(path.join(root, 'elsewhere')), /outside/);
    assert.throws(() => staged.mkdir(`${staged.root}-sibling`), /outside/);
  });
});
