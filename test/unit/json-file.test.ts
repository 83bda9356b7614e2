import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { StoreError } from '../../src/common/errors';
import { readVersioned, writeVersioned } from '../../src/common/json-file';
import { SOURCES_FORMAT_VERSION, SourcesFile } from '../../src/index/sources/sources';
import { fixture, tempDir } from '../helpers';

const read = (file: string) => readVersioned(file, SOURCES_FORMAT_VERSION, SourcesFile);

describe('versioned JSON files', () => {
  it('round-trips and returns null for a missing file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'sources.json');
    assert.equal(await read(file), null);
    await writeVersioned(file, { formatVersion: 1, sources: [] });
    assert.deepEqual(await read(file), { formatVersion: 1, sources: [] });
    assert.deepEqual(fs.readdirSync(dir), ['sources.json'], 'no temp files left behind');
  });

  for (const [name, code, message] of [
    ['future-version.json', 'store_future_version', /formatVersion 99.*upgrade DocQA/],
    ['truncated.json', 'store_corrupt', /not valid JSON/],
    ['proto-keys.json', 'store_corrupt', /schema/],
    ['no-version.json', 'store_corrupt', /no formatVersion/],
  ] as const) {
    it(`rejects ${name} with ${code}, naming the file`, async () => {
      await assert.rejects(read(fixture('store', name)), (e: unknown) => e instanceof StoreError && e.code === code && message.test(e.message) && e.message.includes(name));
    });
  }
});
