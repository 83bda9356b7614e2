import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeNonAscii } from '../../bundle-options.mjs';

/** What `src` logs when run as a script body. */
function logs(src: string): string[] {
  const out: string[] = [];
  new Function('log', src.replace(/^#!.*\n/, ''))((...a: unknown[]) => out.push(a.map(String).join(' ')));
  return out;
}

describe('Node bundles written ASCII-only (bundle-options.mjs)', () => {
  it('escapes the characters esbuild leaves in regular expressions and comments; the code does what it did', () => {
    const src = [
      '#!/usr/bin/env node',
      '// a comment — with a dash',
      'var bullet = /^[•◦▪😀]\\s*$/u, quote = /[”’»]/, escaped = /\\•x/; /* é */',
      "log(bullet.test('\\u2022'), bullet.test('\\u{1F600}'), bullet.test('\\uD83D'), quote.test('\\xBB'), escaped.test('\\u2022x'), 6 / 2 / 3);",
      "log(new RegExp(`^(?:${quote.source})+$`).test('\\u201D\\xBB'));",
    ].join('\n');
    const out = escapeNonAscii(src, 'sample.js');
    // eslint-disable-next-line no-control-regex -- ASCII, by its range
    assert.match(out, /^[\x00-\x7f]*$/, 'ASCII only');
    assert.match(out, /\/\/ a comment \\u2014 with a dash/);
    assert.match(out, /\/\\u2022x\//, 'an identity escape keeps one backslash');
    assert.deepEqual(logs(out), logs(src));
    assert.deepEqual(logs(out), ['true true false true true 1', 'true']);
    assert.equal(escapeNonAscii('var a = 1; // plain\n', 'plain.js'), 'var a = 1; // plain\n', 'an ASCII file as it is');
  });

  it('refuses a character it cannot escape without changing the code (a raw template), naming the file and the place', () => {
    assert.throws(() => escapeNonAscii('var s = String.raw`é`;', 'raw.js'), /raw\.js: a character past ASCII outside comments and regular expressions \(offset 19\)/);
  });
});
