import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { blockView, fixture, ingestOk, outline, tempDir } from '../helpers';

describe('plain-text parser', () => {
  it('splits paragraphs and finds only unambiguous headings (Chapter N, setext underlines)', async () => {
    const d = await ingestOk(fixture('text', 'study-plan.txt'));
    assert.equal(d.title, 'study-plan', 'a text file has no title of its own: the file name is used');
    assert.equal(d.format, 'text');
    assert.deepEqual(outline(d), [
      ['(preamble)', 1],
      ['Chapter 1 Foundations', 1],
      ['Proofs', 1],
      ['Proofs > Direct proof', 2],
    ]);
    assert.deepEqual(blockView(d), [
      ['(preamble)', 'L1-2', 'Reading list for the term.\nStart with the first two chapters.'],
      ['Chapter 1 Foundations', 'L6-6', 'Sets and functions are the language of mathematics.'],
      ['Chapter 1 Foundations', 'L8-8', 'A function maps each input to exactly one output.'],
      ['Proofs', 'L13-13', 'A proof is an argument that leaves no doubt.'],
      ['Proofs > Direct proof', 'L18-18', 'Assume the premise and derive the conclusion.'],
    ]);
  });

  for (const [file, encoding] of [
    ['notes-gbk.txt', 'gb18030'],
    ['notes-utf16le.txt', 'utf-16le'],
    ['notes-utf16be.txt', 'utf-16be'],
    ['notes-utf8-bom.txt', 'utf-8-bom'],
  ] as const) {
    it(`decodes ${encoding} Chinese notes into the same document (${file})`, async () => {
      const d = await ingestOk(fixture('text', file));
      assert.equal(d.encoding, encoding);
      assert.equal(d.lang, 'zh');
      assert.deepEqual(outline(d), [
        ['第一章 绪论', 1],
        ['第二章 方法', 1],
      ]);
      assert.deepEqual(blockView(d), [
        ['第一章 绪论', 'L3-3', '学习笔记：中文文本经常使用 GBK 编码保存。'],
        ['第二章 方法', 'L7-7', '先阅读，再总结。最后复习！'],
      ]);
      assert.equal(d.sections[1]!.first_sentence, '先阅读，再总结。');
    });
  }

  it('a file without any heading is one root section named after the file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'lecture-3.txt');
    fs.writeFileSync(file, 'First paragraph.\n\nSecond paragraph.\n');
    const d = await ingestOk(file);
    assert.deepEqual(outline(d), [['lecture-3', 1]]);
    assert.deepEqual(blockView(d), [
      ['lecture-3', 'L1-1', 'First paragraph.'],
      ['lecture-3', 'L3-3', 'Second paragraph.'],
    ]);
  });

  it('does not take a sentence that starts with "Chapter" for a heading', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'n.txt');
    fs.writeFileSync(file, 'Chapter 2 explains why the proof works.\n\n第三章讲的是方法，不是标题。\n');
    const d = await ingestOk(file);
    assert.equal(d.sections.length, 1);
    assert.equal(d.blocks.length, 2);
  });
});
