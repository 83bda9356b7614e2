import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { firstSentence, firstSentences } from '../../src/index/sentences';
import { FIXTURES } from '../helpers';

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('first sentences', () => {
  it('are the same from one batched pass as from one segmenter call per text (every fixture paragraph, English and Chinese)', () => {
    const paras = walk(FIXTURES)
      .filter((f) => /\.(md|txt)$/.test(f))
      .flatMap((f) => fs.readFileSync(f, 'utf8').split(/\n\s*\n/));
    paras.push('', '   ', 'No stop at all', 'Ends with a separator\u2029', '\u2029starts with one. Then more.', 'Mr. Smith went to Washington. He came back.', 'x'.repeat(500), `${'词'.repeat(300)}。后面`, '你好！世界。', '  padded.  ');
    assert.ok(paras.length > 100);
    assert.deepEqual(firstSentences(paras), paras.map(firstSentence));
  });

  it('cut a long first sentence at 200 characters with an ellipsis and fold white space', () => {
    assert.equal(firstSentence(`Start \t  of ${'a'.repeat(300)}`), `Start of ${'a'.repeat(300)}`.slice(0, 200) + '…');
    assert.equal(firstSentence('第一句。第二句。'), '第一句。');
  });
});
