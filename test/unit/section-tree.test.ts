import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assignPaths, normalizeTitle } from '../../src/index/section-tree';

describe('section paths', () => {
  it('disambiguates repeated sibling titles in document order and skips a suffix a real title uses', () => {
    const paths = assignPaths([
      { title: 'Guide', parent: null, location: null },
      { title: 'Setup', parent: 0, location: null },
      { title: 'Setup (2)', parent: 0, location: null },
      { title: 'Setup', parent: 0, location: null },
      { title: 'Setup', parent: 0, location: null },
      { title: 'Setup', parent: 4, location: null },
    ]);
    assert.deepEqual(paths, ['Guide', 'Guide > Setup', 'Guide > Setup (2)', 'Guide > Setup (3)', 'Guide > Setup (4)', 'Guide > Setup (4) > Setup']);
    assert.equal(new Set(paths).size, paths.length);
  });

  it('the same title under different parents needs no suffix', () => {
    assert.deepEqual(
      assignPaths([
        { title: 'A', parent: null, location: null },
        { title: 'Notes', parent: 0, location: null },
        { title: 'B', parent: null, location: null },
        { title: 'Notes', parent: 2, location: null },
      ]),
      ['A', 'A > Notes', 'B', 'B > Notes'],
    );
  });

  it('normalises whitespace, empty titles and the separator inside a title', () => {
    assert.equal(normalizeTitle('  Input \n Output '), 'Input Output');
    assert.equal(normalizeTitle(''), '(untitled)');
    assert.equal(normalizeTitle('a > b'), 'a › b');
  });
});
