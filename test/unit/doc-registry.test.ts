import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assignDocIds } from '../../src/index/sources/doc-registry';

describe('assignDocIds', () => {
  const first = assignDocIds([], [
    { path: '/n/a.md', content_hash: 'h1' },
    { path: '/n/b.md', content_hash: 'h2' },
  ]);
  const idA = first.ids.get('/n/a.md')!;
  const idB = first.ids.get('/n/b.md')!;

  it('gives new files distinct ids derived from their path, deterministically', () => {
    assert.match(idA, /^d[0-9a-f]{10}$/);
    assert.notEqual(idA, idB);
    assert.deepEqual(assignDocIds([], [{ path: '/n/a.md', content_hash: 'zz' }]).ids.get('/n/a.md'), idA);
  });

  it('keeps ids on a re-scan, also when content changed', () => {
    const again = assignDocIds(first.entries, [
      { path: '/n/a.md', content_hash: 'h1-edited' },
      { path: '/n/b.md', content_hash: 'h2' },
    ]);
    assert.equal(again.ids.get('/n/a.md'), idA);
    assert.equal(again.ids.get('/n/b.md'), idB);
    assert.equal(again.entries.find((e) => e.doc_id === idA)?.content_hash, 'h1-edited');
  });

  it('a moved or renamed file with the same content keeps its id', () => {
    const moved = assignDocIds(first.entries, [
      { path: '/n/sub/renamed.md', content_hash: 'h1' },
      { path: '/n/b.md', content_hash: 'h2' },
    ]);
    assert.equal(moved.ids.get('/n/sub/renamed.md'), idA);
    assert.deepEqual(
      moved.entries.map((e) => e.path),
      [...moved.entries.map((e) => e.path)].filter((p) => p !== '/n/a.md'),
    );
  });

  it('a copy (the original still in place) gets a new id', () => {
    const copied = assignDocIds(first.entries, [
      { path: '/n/a.md', content_hash: 'h1' },
      { path: '/n/copy-of-a.md', content_hash: 'h1' },
      { path: '/n/b.md', content_hash: 'h2' },
    ]);
    assert.equal(copied.ids.get('/n/a.md'), idA);
    assert.notEqual(copied.ids.get('/n/copy-of-a.md'), idA);
  });

  it('a file that disappears and later comes back is recognised', () => {
    const gone = assignDocIds(first.entries, [{ path: '/n/b.md', content_hash: 'h2' }]);
    const back = assignDocIds(gone.entries, [
      { path: '/n/a.md', content_hash: 'h1' },
      { path: '/n/b.md', content_hash: 'h2' },
    ]);
    assert.equal(back.ids.get('/n/a.md'), idA);
  });

  it('says whether the registry changed, so an unchanged one is not rewritten', () => {
    const both = [
      { path: '/n/a.md', content_hash: 'h1' },
      { path: '/n/b.md', content_hash: 'h2' },
    ];
    assert.equal(first.changed, true);
    assert.equal(assignDocIds(first.entries, both).changed, false);
    assert.deepEqual(assignDocIds(first.entries, both).entries, first.entries);
    assert.equal(assignDocIds(first.entries, [{ path: '/n/a.md', content_hash: 'h1' }]).changed, false, 'a file not seen keeps its entry');
    assert.equal(assignDocIds(first.entries, [both[0]!, { path: '/n/b.md', content_hash: 'h3' }]).changed, true);
    assert.equal(assignDocIds(first.entries, [...both, { path: '/n/c.md', content_hash: 'h4' }]).changed, true);
  });
});
