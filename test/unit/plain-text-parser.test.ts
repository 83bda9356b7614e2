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

  it('reads Chinese text that marks paragraphs by indenting them, one per line, without blank lines', async () => {
    // The common shape of Chinese .txt notes and e-books: two ideographic spaces (U+3000) open every
    // paragraph, and a chapter line stands on its own line right above the text.
    const d = await ingestOk(fixture('text', 'biology-indented-gbk.txt'));
    assert.equal(d.encoding, 'gb18030');
    assert.deepEqual(outline(d), [
      ['第一章 细胞的结构', 1],
      ['第二章 光合作用', 1],
    ]);
    assert.deepEqual(blockView(d), [
      ['第一章 细胞的结构', 'L2-2', '细胞是生物体结构和功能的基本单位。除病毒以外，所有生物都由细胞构成。'],
      ['第一章 细胞的结构', 'L3-3', '细胞膜控制物质进出细胞，细胞核是遗传信息库。'],
      ['第二章 光合作用', 'L5-5', '光合作用在叶绿体中进行，把光能转化为化学能。'],
      ['第二章 光合作用', 'L6-6', '影响光合作用的因素有光照强度、二氧化碳浓度和温度。'],
    ]);
    // ASCII indentation before Chinese is the same mark; before English it is not (quotes, wrapped lists).
    const dir = tempDir();
    const file = path.join(dir, 'mixed.txt');
    fs.writeFileSync(file, '  第一段。\n  第二段。\nWrapped English line\n    continues indented here.\n');
    assert.deepEqual(blockView(await ingestOk(file)), [
      ['mixed', 'L1-1', '第一段。'],
      ['mixed', 'L2-4', '第二段。\nWrapped English line\n    continues indented here.'],
    ]);
    // A Chinese chapter line needs no blank line around it; an English "Chapter 3" line does, as it may
    // begin a wrapped sentence; an underlined chapter is one heading.
    fs.writeFileSync(file, '第一章 绪论\n学习笔记。\n第二章 方法\n先阅读。\n\nThe notes end here.\nChapter 3 of the book covers\nthe basics.\n\n第三章 总结\n=========\n\n复习。\n');
    const chapters = await ingestOk(file);
    assert.deepEqual(outline(chapters), [
      ['第一章 绪论', 1],
      ['第二章 方法', 1],
      ['第三章 总结', 1],
    ]);
    assert.deepEqual(blockView(chapters), [
      ['第一章 绪论', 'L2-2', '学习笔记。'],
      ['第二章 方法', 'L4-4', '先阅读。'],
      ['第二章 方法', 'L6-8', 'The notes end here.\nChapter 3 of the book covers\nthe basics.'],
      ['第三章 总结', 'L13-13', '复习。'],
    ]);
    // A table of contents is a list of chapter lines: one paragraph, so the chapters below stay unique.
    fs.writeFileSync(file, '目录\n\n第一章 绪论 ...... 1\n第二章 方法 ...... 5\n\n第一章 绪论\n学习笔记。\n第二章 方法\n先阅读。\n');
    const withToc = await ingestOk(file);
    assert.deepEqual(outline(withToc), [
      ['(preamble)', 1],
      ['第一章 绪论', 1],
      ['第二章 方法', 1],
    ]);
    assert.deepEqual(blockView(withToc).slice(0, 2), [
      ['(preamble)', 'L1-1', '目录'],
      ['(preamble)', 'L3-4', '第一章 绪论 ...... 1\n第二章 方法 ...... 5'],
    ]);
  });

  it('takes Chinese outline numbers (一、 then （一）) on lines of their own for headings, below chapters; a run of them is a list', async () => {
    const dir = tempDir();
    const file = path.join(dir, '复习提纲.txt');
    fs.writeFileSync(
      file,
      '第三章 细胞\n一、细胞膜\n细胞膜由磷脂双分子层构成。\n二、线粒体\n线粒体是有氧呼吸的主要场所。\n（一）结构\n外膜、内膜、嵴和基质。\n(二) 功能\n产生ATP。\n\n要点：\n一、结构与功能相适应\n二、分工合作\n\n一、细胞膜由磷脂构成，蛋白质镶嵌其中\n二、\n',
    );
    const d = await ingestOk(file);
    assert.deepEqual(outline(d), [
      ['第三章 细胞', 1],
      ['第三章 细胞 > 一、细胞膜', 2],
      ['第三章 细胞 > 二、线粒体', 2],
      ['第三章 细胞 > 二、线粒体 > （一）结构', 3],
      ['第三章 细胞 > 二、线粒体 > (二) 功能', 3],
    ]);
    assert.deepEqual(blockView(d), [
      ['第三章 细胞 > 一、细胞膜', 'L3-3', '细胞膜由磷脂双分子层构成。'],
      ['第三章 细胞 > 二、线粒体', 'L5-5', '线粒体是有氧呼吸的主要场所。'],
      ['第三章 细胞 > 二、线粒体 > （一）结构', 'L7-7', '外膜、内膜、嵴和基质。'],
      ['第三章 细胞 > 二、线粒体 > (二) 功能', 'L9-9', '产生ATP。'],
      // Numbered points in a row, a numbered sentence (commas inside) and a bare number are text.
      ['第三章 细胞 > 二、线粒体 > (二) 功能', 'L11-13', '要点：\n一、结构与功能相适应\n二、分工合作'],
      ['第三章 细胞 > 二、线粒体 > (二) 功能', 'L15-16', '一、细胞膜由磷脂构成，蛋白质镶嵌其中\n二、'],
    ]);
  });

  it('keeps a text whose guessed headings would leave it no words (an outline of chapter lines) as text', async () => {
    const dir = tempDir();
    const file = path.join(dir, '提纲.txt');
    fs.writeFileSync(file, '第一章 绪论\n\n第二章 方法\n一、观察\n（一）记录\n');
    const d = await ingestOk(file);
    assert.deepEqual(outline(d), [['提纲', 1]]);
    assert.deepEqual(blockView(d), [
      ['提纲', 'L1-1', '第一章 绪论'],
      ['提纲', 'L3-5', '第二章 方法\n一、观察\n（一）记录'],
    ]);
  });

  it('reads Traditional Chinese notes saved as Big5', async () => {
    const d = await ingestOk(fixture('text', 'biology-big5.txt'));
    assert.equal(d.encoding, 'big5');
    assert.equal(d.lang, 'zh');
    assert.deepEqual(outline(d), [
      ['第一章 細胞的構造', 1],
      ['第二章 光合作用', 1],
    ]);
    assert.deepEqual(blockView(d), [
      ['第一章 細胞的構造', 'L2-2', '細胞是生物體結構和功能的基本單位。除了病毒以外，所有生物都是由細胞構成的。'],
      ['第一章 細胞的構造', 'L3-3', '細胞膜控制物質進出細胞，細胞核是遺傳資訊庫。'],
      ['第二章 光合作用', 'L5-5', '光合作用在葉綠體中進行，把光能轉化為化學能。'],
    ]);
  });

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
