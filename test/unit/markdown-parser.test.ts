import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { blockView, fixture, FIXTURES, ingestOk, outline, tempDir } from '../helpers';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { blockTokens, configuredMarkdownIt } from '../../src/index/parse/markdown';

describe('Markdown parser', () => {
  it('turns headings into a section tree with unique paths and keeps exact line ranges', async () => {
    const d = await ingestOk(fixture('markdown', 'cell-notes.md'));
    assert.equal(d.title, 'Cell Biology Notes', 'front-matter title wins');
    assert.equal(d.format, 'markdown');
    assert.equal(d.lang, 'en');
    assert.deepEqual(outline(d), [
      ['(preamble)', 1],
      ['Cells', 1],
      ['Cells > Setup', 2],
      ['Cells > Setup (2)', 2],
      ['Cells > Setup (2) > Staining', 3],
      ['Cells > Organelles', 2],
    ]);
    assert.deepEqual(blockView(d), [
      ['(preamble)', 'L6-6', 'Intro paragraph before any heading.'],
      ['Cells', 'L10-10', 'Cells are the basic unit of life. They were first described by Robert Hooke.'],
      ['Cells > Setup', 'L14-14', 'Use a light microscope.'],
      ['Cells > Setup (2)', 'L18-18', 'Prepare the slide with a drop of water.'],
      ['Cells > Setup (2) > Staining', 'L22-23', '- Iodine stains starch.\n- Methylene blue stains nuclei.'],
      ['Cells > Organelles', 'L27-29', '| Organelle | Function |\n|---|---|\n| Nucleus | Holds DNA |'],
      ['Cells > Organelles', 'L31-34', '```sh\n# not a heading\nls slides/\n```'],
      ['Cells > Organelles', 'L36-36', '> Mitochondria are the powerhouse of the cell.'],
      ['Cells > Organelles', 'L39-39', 'Remember the `mitochondria`.'],
      ['Cells > Organelles', 'L44-44', 'Options API text.'],
    ]);
    assert.deepEqual(
      d.blocks.map((b) => b.block_index),
      d.blocks.map((_, i) => i),
    );
  });

  it('counts direct and subtree blocks and tokens and takes each section’s first sentence', async () => {
    const d = await ingestOk(fixture('markdown', 'cell-notes.md'));
    const s = Object.fromEntries(d.sections.map((x) => [x.path, x]));
    assert.equal(s['Cells']!.direct_blocks, 1);
    assert.equal(s['Cells']!.subtree_blocks, 9);
    assert.equal(s['Cells > Setup (2)']!.subtree_blocks, 2);
    assert.equal(s['Cells > Organelles']!.direct_blocks, 5);
    assert.equal(s['Cells']!.first_sentence, 'Cells are the basic unit of life.');
    assert.equal(s['Cells > Setup (2)']!.first_sentence, 'Prepare the slide with a drop of water.');
    assert.equal(s['Cells']!.location?.kind === 'lines' && s['Cells']!.location.line_start, 8);
    for (const sec of d.sections) {
      const direct = d.blocks.filter((b) => b.section_path === sec.path);
      const subtree = d.blocks.filter((b) => b.section_path === sec.path || b.section_path.startsWith(`${sec.path} > `));
      assert.equal(sec.direct_tokens, direct.reduce((n, b) => n + b.token_count, 0), sec.path);
      assert.equal(sec.subtree_tokens, subtree.reduce((n, b) => n + b.token_count, 0), sec.path);
      assert.equal(sec.subtree_blocks, subtree.length, sec.path);
    }
    assert.deepEqual(
      d.sections.map((x) => x.ordinal),
      d.sections.map((_, i) => i + 1),
    );
  });

  it('merges tiny neighbours only inside one section', async () => {
    const d = await ingestOk(fixture('markdown', 'cell-notes.md'), DEFAULT_INGEST_OPTIONS);
    assert.deepEqual(
      blockView(d).map(([s, loc]) => [s, loc]),
      [
        ['(preamble)', 'L6-6'],
        ['Cells', 'L10-10'],
        ['Cells > Setup', 'L14-14'],
        ['Cells > Setup (2)', 'L18-18'],
        ['Cells > Setup (2) > Staining', 'L22-23'],
        ['Cells > Organelles', 'L27-44'],
      ],
    );
    assert.match(d.blocks[5]!.text, /^\| Organelle[\s\S]*Options API text\.$/);
  });

  it('handles Chinese headings, duplicate titles and a title containing the path separator', async () => {
    const d = await ingestOk(fixture('markdown', 'zh-history.md'));
    assert.equal(d.title, '中国历史笔记');
    assert.equal(d.lang, 'zh');
    assert.deepEqual(outline(d), [
      ['中国历史笔记', 1],
      ['中国历史笔记 > 秦朝', 2],
      ['中国历史笔记 > 汉朝', 2],
      ['中国历史笔记 > 汉朝 (2)', 2],
      ['中国历史笔记 > 汉朝 (2) > 人物 › 张骞', 3],
    ]);
    assert.deepEqual(blockView(d), [
      ['中国历史笔记 > 秦朝', 'L5-5', '秦始皇统一六国。他统一了文字和度量衡。'],
      ['中国历史笔记 > 汉朝', 'L9-9', '汉朝分为西汉和东汉。'],
      ['中国历史笔记 > 汉朝 (2)', 'L13-13', '重复的标题也要有唯一路径。'],
      ['中国历史笔记 > 汉朝 (2) > 人物 › 张骞', 'L17-17', '张骞出使西域！'],
    ]);
    assert.equal(d.sections[1]!.first_sentence, '秦始皇统一六国。');
    assert.equal(d.sections[0]!.first_sentence, '秦始皇统一六国。', 'a section without direct blocks takes its subtree’s first sentence');
  });

  it('reads a real page that starts with a UTF-8 BOM (Vue guide, plugins.md)', async () => {
    const d = await ingestOk(fixture('markdown', 'vue-en', 'plugins.md'));
    assert.equal(d.encoding, 'utf-8-bom');
    assert.equal(d.title, 'Plugins');
    assert.deepEqual(outline(d), [
      ['Plugins', 1],
      ['Plugins > Introduction', 2],
      ['Plugins > Writing a Plugin', 2],
      ['Plugins > Writing a Plugin > Provide / Inject with Plugins', 3],
      ['Plugins > Writing a Plugin > Bundle for NPM', 3],
    ]);
    // Heading anchors {#…} are not part of titles; no block crosses a section.
    assert.ok(d.sections.every((s) => !s.title.includes('{#')));
    assert.equal(d.blocks[0]!.section_path, 'Plugins > Introduction');
    assert.deepEqual(d.blocks[0]!.location, { kind: 'lines', line_start: 5, line_end: 5 });
    assert.ok(d.blocks.every((b) => b.token_count <= 512));
  });

  it('reads a real Chinese page (Vue guide, computed.md): code `#` lines are not headings, lang is zh', async () => {
    const d = await ingestOk(fixture('markdown', 'vue-zh', 'computed.md'));
    assert.equal(d.title, '计算属性');
    assert.equal(d.lang, 'zh');
    assert.deepEqual(
      d.sections.map((s) => s.title),
      ['计算属性', '基础示例', '计算属性缓存 vs 方法', '可写计算属性', '获取上一个值', '最佳实践', 'Getter 不应有副作用', '避免直接修改计算属性值'],
    );
    // Bare <script setup> blocks and <div class="options-api"> wrappers are not content.
    assert.ok(d.blocks.every((b) => !b.text.startsWith('<script') && !b.text.startsWith('<div')));
  });

  it('builds exactly the tokens markdown-it builds itself (its token construction is replaced for speed)', () => {
    const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const sources = walk(FIXTURES)
      .filter((f) => /\.(md|txt)$/.test(f))
      .map((f) => fs.readFileSync(f, 'utf8'));
    // Every block construct, including the ones that set attributes (table alignment, list start).
    sources.push(
      [
        'Title\n=====', 'Sub\n---', '# H1 #', '***', '> quote\n> > nested\n\n    indented code', '```js title="x"\ncode\n```',
        '| l | c | r |\n|:--|:-:|--:|\n| 1 | 2 | 3 |', '3. three\n4. four\n   - nested\n\n     para', '- [ ] task\n* other', '<div>\n<b>html</b>\n</div>',
        '<!-- comment -->', '[ref]: https://example.com "T"', 'para  \nhard break', '~~~\nfence\n~~~',
      ].join('\n\n'),
    );
    const reference = configuredMarkdownIt();
    for (const src of sources) assert.deepStrictEqual(blockTokens(src), reference.parse(src, {}));
  });

  it('reads HTML blocks full of unclosed "<" or "<!--", and a heading with 200,000 spaces, in time linear in their length (29, 68 and 43 s)', { timeout: 20_000 }, async () => {
    const dir = tempDir();
    const lessThan = path.join(dir, 'inequalities.md');
    fs.writeFileSync(lessThan, `# Bounds\n\n<div>\n${'a < b '.repeat(60_000)}\n\nAfter.\n`);
    const d = await ingestOk(lessThan);
    // The HTML block carries words: kept, in pieces of the one long line.
    const view = blockView(d);
    assert.deepEqual(view[0], ['Bounds', 'L3-3', '<div>']);
    assert.ok(view.length > 3 && view.slice(1, -1).every((b) => b[1] === 'L4-4' && /^[ab< ]+$/.test(b[2])));
    assert.deepEqual(view[view.length - 1], ['Bounds', 'L6-6', 'After.']);
    // A heading with a long run of spaces (its anchor pattern began with \s*).
    const spaced = path.join(dir, 'spaced.md');
    fs.writeFileSync(spaced, `# Title${' '.repeat(200_000)}end {#anchor}\n\nText.\n`);
    assert.deepEqual(outline(await ingestOk(spaced)), [['Title end', 1]]);
    const comments = path.join(dir, 'comments.md');
    fs.writeFileSync(comments, `# Draft\n\nKept.\n\n<!--\n${'x <!-- y '.repeat(60_000)}\n`);
    assert.deepEqual(blockView(await ingestOk(comments)), [['Draft', 'L3-3', 'Kept.']], 'an unclosed comment runs to the end and says nothing');
  });

  it('reads CRLF and CR line endings exactly as LF: same sections, blocks, texts and line ranges (also plain text)', async () => {
    const dir = tempDir();
    try {
      for (const name of ['cell-notes.md', path.join('..', 'text', 'study-plan.txt')]) {
        const lf = fs.readFileSync(fixture('markdown', name), 'utf8').replace(/\r\n?/g, '\n');
        const ext = path.extname(name);
        const view = async (eol: string) => {
          const file = path.join(dir, `${JSON.stringify(eol).length}${ext}`);
          fs.writeFileSync(file, lf.replace(/\n/g, eol));
          const d = await ingestOk(file);
          return { outline: outline(d), blocks: blockView(d), sections: d.sections.map((s) => [s.location, s.first_sentence, s.direct_tokens]) };
        };
        const expected = await view('\n');
        assert.ok(expected.blocks.length > 2, name);
        assert.deepEqual(await view('\r\n'), expected, `${name} with CRLF`);
        assert.deepEqual(await view('\r'), expected, `${name} with CR`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
