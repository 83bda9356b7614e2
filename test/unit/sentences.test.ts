import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { sentenceGoesOn, firstSentence, firstSentences, SEGMENT_WINDOW, splitSentences } from '../../src/index/blocks/sentences';
import { filesUnder, FIXTURES } from '../helpers';

describe('first sentences', () => {
  it('are the same from one batched pass as text by text (every fixture paragraph, English and Chinese)', () => {
    const paras = filesUnder(FIXTURES)
      .filter((f) => /\.(md|txt)$/.test(f))
      .flatMap((f) => fs.readFileSync(f, 'utf8').split(/\n\s*\n/));
    paras.push('', '   ', 'No stop at all', 'Ends with a separator\u2029', '\u2029starts with one. Then more.', 'Mr. Smith went to Washington. He came back.', 'x'.repeat(500), `${'词'.repeat(300)}。后面`, '你好！世界。', '  padded.  ');
    assert.ok(paras.length > 100);
    assert.deepEqual(firstSentences(paras), paras.map(firstSentence));
  });

  it('cut a long first sentence at 200 characters with an ellipsis and fold white space', () => {
    assert.equal(firstSentence(`Start \t  of ${'a'.repeat(300)}`), `Start of ${'a'.repeat(300)}`.slice(0, 200) + '…');
    assert.equal(firstSentence('第一句。第二句。'), '第一句。');
    // A section that opens with a list, a quote, a table or code: its words, not Markdown's markers.
    assert.equal(firstSentence('- Iodine stains starch.\n- Methylene blue stains nuclei.'), 'Iodine stains starch.');
    assert.equal(firstSentence('1. [x] Prepare the slide\n2. [ ] Stain it'), 'Prepare the slide');
    assert.equal(firstSentence('> # Quoted heading\n>\n> text'), 'Quoted heading');
    assert.equal(firstSentence('> Mitochondria are the powerhouse.\n> They make ATP.'), 'Mitochondria are the powerhouse.');
    assert.equal(firstSentence('| Organelle | Function |\n|---|---|\n| Nucleus | DNA |'), 'Organelle | Function');
    assert.equal(firstSentence('```sh\nls slides/\n```'), 'ls slides/');
    assert.equal(firstSentence('- 碘液使淀粉变蓝。\n- 亚甲蓝染细胞核。'), '碘液使淀粉变蓝。');
    assert.equal(firstSentence('Plain -5 degrees and > 3 items.'), 'Plain -5 degrees and > 3 items.');
    assert.equal(firstSentence('• Glucose is oxidised.\n• Energy is stored.'), 'Glucose is oxidised.', 'a PDF bullet glyph is no word');
    assert.equal(firstSentence('\uF0B7 Word’s Symbol bullet. Next.'), 'Word’s Symbol bullet.');
    // Inline markup as the words it shows: outlines summarised READMEs as "[![" (a badge cut at its "!").
    const readme = `[![npm](https://img.shields.io/npm/v/x.svg)](https://npmjs.com/x) [![CI][ci-img]][ci-url]\n\n${'[<img src="logo.svg" alt="x" />](https://x.dev) '.repeat(8)}\n\n> **x** is a [tiny](https://x.dev/why) library for \`snake_case\` and __bold__ _em_ text, 2 * 3 times faster than [\`<Big>\` (v2)](https://en.wikipedia.org/wiki/Big_(library)). More.`;
    assert.equal(firstSentence(readme), 'x is a tiny library for snake_case and bold em text, 2 * 3 times faster than <Big> (v2).');
    assert.equal(firstSentence('`*` - any value'), '* - any value', 'a code span is words, not a list marker');
    // A link cut by the head's end, behind markup that shrank the head: more of the text is read.
    const badge = `[![build](https://img.shields.io/${'b'.repeat(120)})](https://ci.example)`;
    const words = `Then a ${'very '.repeat(16)}`;
    assert.equal(firstSentence(`${badge}\n\n${words}[long link text](https://example.com/${'y'.repeat(300)}) end. Next.`), `${words}long link text end.`);
    assert.equal(firstSentence('线粒体是==有氧呼吸==的主要场所。其次。'), '线粒体是有氧呼吸的主要场所。', 'a highlight is its words');
    assert.equal(firstSentence('If a == b and c == d, stop.'), 'If a == b and c == d, stop.');
    assert.equal(
      firstSentence('See [[Glycolysis]] ![[krebs.png]] and [[Cell biology#Membranes|membranes]] in [[Cell biology#Membranes]]. Next.'),
      'See Glycolysis and membranes in Cell biology > Membranes.',
      'Obsidian wikilinks as Obsidian shows them; an embed shows no words',
    );
    assert.equal(firstSentence('Mitochondria %% check this %% make ATP. Next.'), 'Mitochondria make ATP.', 'an Obsidian comment is hidden');
    assert.equal(firstSentence('- Membranes are bilayers.\n  id:: 64f0c2a1\n  collapsed:: true\n- Next'), 'Membranes are bilayers.', 'Logseq properties are metadata');
    assert.equal(firstSentence('Use std::vector here. Next.'), 'Use std::vector here.');
    assert.equal(firstSentence('<p align="center"><!-- logo --><b>Fast</b> search.</p>'), 'Fast search.');
    assert.equal(firstSentence('<ScrimbaLink href="https://scrimba.com/x" title="Lesson">\n  Watch a lesson\n</ScrimbaLink>'), 'Watch a lesson', 'a component’s tags are markup');
    assert.equal(firstSentence('•\n\nYou have written a feature. Next.'), 'You have written a feature.', 'a bullet standing alone is no sentence');
    assert.equal(firstSentence('```js\nif (!ok) return; else done();\n```'), 'if (!ok) return; else done();', 'code is not cut into sentences');
    assert.equal(firstSentence('- [**Cortex-A57**](https://arm.com) or newer. Next.'), 'Cortex-A57 or newer.');
    // A hard-wrapped paragraph's line breaks are spaces (nothing between CJK characters); items stay apart.
    assert.equal(firstSentence('This document aims to answer that\nquestion. And more.'), 'This document aims to answer that question.');
    assert.equal(firstSentence('> Quoted text that wraps\n> onto two lines. Next.'), 'Quoted text that wraps onto two lines.');
    assert.equal(firstSentence('细胞膜由磷脂双分子层\n构成。其次。'), '细胞膜由磷脂双分子层构成。');
    assert.equal(firstSentence('- A long item that\n  wraps here. Two.\n- Next item'), 'A long item that wraps here.');
    assert.equal(firstSentence('***As far as the law allows, this\nsoftware comes as is.***'), 'As far as the law allows, this software comes as is.');
    // Obsidian callouts: the type marker is no sentence ("[!" was one, ICU breaking after the "!").
    assert.equal(firstSentence('> [!note] Where it happens\n> In the mitochondrial matrix.'), 'Where it happens');
    assert.equal(firstSentence('> [!tip]- \n> 线粒体有自己的 DNA。后来才发现。'), '线粒体有自己的 DNA。');
  });

  it('go on past a "!" or "?" inside a sentence, which ICU ends a sentence at whatever follows', () => {
    const text = 'You have written a feature and (hopefully!) want to test it. Really? Yes. Is it “good?” he asked.';
    assert.deepEqual(splitSentences(text), ['You have written a feature and (hopefully!) want to test it. ', 'Really? ', 'Yes. ', 'Is it “good?” he asked.']);
    assert.equal(firstSentence(text), 'You have written a feature and (hopefully!) want to test it.');
    assert.deepEqual(firstSentences([text, '你好！我们走吧。']), ['You have written a feature and (hopefully!) want to test it.', '你好！']);
  });

  it('go on past a title’s abbreviation and the initials after it, which V8’s ICU takes for sentence ends', () => {
    const text = 'Lecture by Dr. A. Example spoke. Then Mr. Darcy left with Prof. Li. In the U.S. Rain falls. Plan A. Then B.';
    const expected = ['Lecture by Dr. A. Example spoke. ', 'Then Mr. Darcy left with Prof. Li. ', 'In the U.S. ', 'Rain falls. ', 'Plan A. ', 'Then B.'];
    assert.deepEqual(splitSentences(text), expected, '"U.S." and a lone initial still end sentences');
    assert.equal(splitSentences(text).join(''), text);
    assert.equal(firstSentence(text), expected[0]!.trim());
    assert.deepEqual(firstSentences([text, 'Mr. Darcy', 'Dr. Li’s notes\nDr. Li wrote them. Then.']), ['Lecture by Dr. A. Example spoke.', 'Mr. Darcy', 'Dr. Li’s notes Dr. Li wrote them.']);
    assert.deepEqual(firstSentences(['Dr. Li’s notes\nDr. Li wrote them. Then.'], ['Dr. Li’s notes']), ['Dr. Li wrote them.'], 'a title with an abbreviation is still skipped');
  });

  it('skip a first sentence that is only the given title (a PDF section opens with its heading line)', () => {
    assert.deepEqual(
      firstSentences(
        ['2 Calvin Cycle\n\nThe cycle builds sugar. It runs in the stroma.', 'Cells are the basic unit of life.', 'Mozilla testing •\nYou have written a feature.', '第一章 光反应\n光反应发生在类囊体膜上。', 'In production'],
        ['2 Calvin  cycle', 'Cells', 'Mozilla testing', '第一章 光反应', 'In production'],
      ),
      ['The cycle builds sugar.', 'Cells are the basic unit of life.', 'You have written a feature.', '光反应发生在类囊体膜上。', ''],
    );
  });

  it('are the same for thousands of sections (headings repeated down a long page) as one by one', () => {
    const texts = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `步骤 ${i}。然后继续。` : `Step ${i} is short. Then more follows.`));
    assert.deepEqual(firstSentences(texts), texts.map(firstSentence));
  });
});

describe('splitSentences', () => {
  const segmenter = new Intl.Segmenter('zh', { granularity: 'sentence' });
  // One pass of the segmenter, a sentence that goes on (a title's abbreviation, "(hopefully!) want")
  // joined to the next.
  const direct = (t: string) =>
    [...segmenter.segment(t)].map((s) => s.segment).reduce<string[]>((out, s) => {
      if (out.length > 0 && sentenceGoesOn(out[out.length - 1]!, s)) out[out.length - 1] += s;
      else out.push(s);
      return out;
    }, []);

  it('gives the segmenter’s own sentences (abbreviations joined) for the fixtures, window by window (each file, and all of them as one text)', () => {
    const texts = filesUnder(FIXTURES)
      .filter((f) => /\.(md|txt)$/.test(f))
      .map((f) => fs.readFileSync(f, 'utf8'));
    const all = texts.join('\n\n');
    assert.ok(all.length > 4 * SEGMENT_WINDOW);
    for (const t of [...texts, all]) assert.deepEqual(splitSentences(t), direct(t));
  });

  it('joins what goes on in time linear in its length ("Dr. " 60,000 times took 27 s: its end was read from a string built by +)', { timeout: 20_000 }, () => {
    for (const unit of ['Dr. ', 'Wow! really ']) {
      const text = unit.repeat(60_000);
      assert.deepEqual(splitSentences(text), [text]);
    }
  });

  it('keeps sentences longer than a window whole, as one pass does', () => {
    const long = `Intro. ${'Word '.repeat(1000)}end. 后来。${'字'.repeat(5000)}。Last one.`;
    assert.deepEqual(splitSentences(long), direct(long));
    assert.deepEqual(splitSentences(long).map((p) => p.length), [7, 5005, 3, 5001, 9]);
    assert.deepEqual(splitSentences(''), []);
  });
});
