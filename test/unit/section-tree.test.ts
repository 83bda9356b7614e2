import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWithin, pathSegment, pathSegments } from '../../src/index/blocks/section-path';
import { assignPaths, normalizeTitle } from '../../src/index/blocks/section-tree';

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

  it('gives thousands of repeats the paths a search from (2) for each one gives, literal suffixes and nesting included', () => {
    const drafts: Array<{ title: string; parent: number | null; location: null }> = [];
    for (let i = 0; i < 3000; i++) {
      const title = i % 97 === 5 ? `Setup (${i % 13})` : i % 7 === 0 ? 'Notes' : 'Setup';
      drafts.push({ title, parent: i % 5 === 0 ? null : 0, location: null });
    }
    // The plain reference: for each repeat, the smallest free suffix searched from 2.
    const literal = new Map<string, Set<string>>();
    const key = (p: number | null) => String(p);
    drafts.forEach((d) => literal.set(key(d.parent), (literal.get(key(d.parent)) ?? new Set()).add(d.title)));
    const used = new Map<string, Set<string>>();
    const expected: string[] = [];
    for (const d of drafts) {
      const taken = used.get(key(d.parent)) ?? new Set<string>();
      used.set(key(d.parent), taken);
      let name = d.title;
      for (let n = 2; taken.has(name); n++) {
        name = `${d.title} (${n})`;
        if (literal.get(key(d.parent))!.has(name)) name = d.title;
      }
      taken.add(name);
      expected.push(d.parent === null ? name : `${expected[d.parent]} > ${name}`);
    }
    assert.deepEqual(assignPaths(drafts), expected);
    assert.equal(new Set(expected).size, expected.length);
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

  it('normalises whitespace and empty titles; a title keeps its `>`, its path segment writes it `›`', () => {
    assert.equal(normalizeTitle('  Input \n Output '), 'Input Output');
    assert.equal(normalizeTitle(''), '(untitled)');
    assert.equal(normalizeTitle('a > b'), 'a > b');
    assert.equal(pathSegment('  a > b '), 'a › b');
    assert.equal(pathSegment('x>0'), 'x›0');
    assert.equal(pathSegment(''), '(untitled)');
  });

  it('a heading that starts or ends with the separator made paths two sections shared (`X > > Y`): every path is unique, and splits back into its segments', () => {
    const drafts = [
      { title: 'X', parent: null, location: null },
      { title: '> Y', parent: 0, location: null },
      { title: 'X >', parent: null, location: null },
      { title: 'Y', parent: 2, location: null },
      { title: '>', parent: null, location: null },
      { title: '›', parent: null, location: null },
    ];
    const paths = assignPaths(drafts);
    assert.deepEqual(paths, ['X', 'X > › Y', 'X ›', 'X › > Y', '›', '› (2)']);
    assert.equal(new Set(paths).size, paths.length);
    assert.deepEqual(pathSegments('X › > Y'), ['X ›', 'Y']);
    // Within by whole segments: X's subtree is X and X > › Y, never X › or its child.
    assert.deepEqual(paths.filter((p) => isWithin(p, 'X')), ['X', 'X > › Y']);
    assert.deepEqual(paths.filter((p) => isWithin(p, 'X ›')), ['X ›', 'X › > Y']);
  });
});
