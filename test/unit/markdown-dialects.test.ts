import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { blockView, ingestOk, outline, tempDir } from '../helpers';

describe('Markdown as editors and site generators write it', () => {
  it('takes the front-matter title as written, numbers included, and ignores a title that is no scalar', async () => {
    const dir = tempDir();
    const titleOf = async (frontMatter: string) => {
      const file = path.join(dir, 'file-name.md');
      fs.writeFileSync(file, `---\n${frontMatter}\n---\n\nBody text.\n`);
      const d = await ingestOk(file);
      const line = frontMatter.split('\n').length + 4;
      assert.deepEqual(blockView(d), [[d.title, `L${line}-${line}`, 'Body text.']], frontMatter);
      return d.title;
    };
    assert.equal(await titleOf('title: 1984'), '1984');
    assert.equal(await titleOf('title: 1.50'), '1.50', 'the digits written, not the number YAML reads');
    assert.equal(await titleOf('title: "  Spaced  "'), 'Spaced');
    assert.equal(await titleOf('tags: [a]\ntitle: 光合作用'), '光合作用');
    assert.equal(await titleOf('title:\n  - a list'), 'file-name');
    assert.equal(await titleOf('title: null'), 'file-name');
    assert.equal(await titleOf('title: [unclosed'), 'file-name', 'malformed YAML: still front matter, no title');
  });

  it('skips Hugo TOML front matter (+++) and takes its title', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'post.md');
    const titleOf = async (toml: string) => {
      fs.writeFileSync(file, `+++\n${toml}\n+++\n\nBody text.\n`);
      const d = await ingestOk(file);
      const line = toml.split('\n').length + 4;
      assert.deepEqual(blockView(d), [[d.title, `L${line}-${line}`, 'Body text.']], toml);
      return d.title;
    };
    assert.equal(await titleOf('date = 2024-03-01\ntitle = "Cell \\"division\\" notes" # comment\ndraft = false'), 'Cell "division" notes');
    assert.equal(await titleOf("title = '光合作用 C:\\notes'"), '光合作用 C:\\notes');
    assert.equal(await titleOf('[params]\ntitle = "not the page title"'), 'post');
    assert.equal(await titleOf('tags = ["a"]'), 'post');
  });

  it('gives an indented code block its code as rendered: the four spaces every line shares removed, deeper ones kept', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'indented.md');
    fs.writeFileSync(file, '# Area\n\nThe function:\n\n    def area(r):\n        return 3.14159 * r * r\n');
    assert.deepEqual(blockView(await ingestOk(file)), [
      ['Area', 'L3-3', 'The function:'],
      ['Area', 'L5-6', 'def area(r):\n    return 3.14159 * r * r'],
    ]);
  });

  it('elides the payload of images pasted inline as data URIs, keeping the text and lines around them', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'pasted.md');
    const payload = Buffer.from(Array.from({ length: 30_000 }, (_, i) => (i * 7919) % 251)).toString('base64');
    fs.writeFileSync(
      file,
      `# Cells\n\nThe diagram:\n![cell diagram](data:image/png;base64,${payload})\nshows the nucleus.\n\n<p>Figure 1: <img alt="x" src="data:image/jpeg;base64,${payload}"></p>\n\n\`\`\`\nconst short = "data:text/plain;base64,${payload.slice(0, 300)}";\n\`\`\`\n`,
    );
    const d = await ingestOk(file);
    assert.deepEqual(blockView(d), [
      ['Cells', 'L3-5', 'The diagram:\n![cell diagram](data:image/png;base64,…)\nshows the nucleus.'],
      ['Cells', 'L7-7', '<p>Figure 1: <img alt="x" src="data:image/jpeg;base64,…"></p>'],
      ['Cells', 'L9-11', `\`\`\`\nconst short = "data:text/plain;base64,${payload.slice(0, 300)}";\n\`\`\``],
    ]);
    assert.ok(d.blocks.slice(0, 2).every((b) => b.token_count < 50), 'an image is not 20,000 tokens of noise');
  });

  it('titles a heading that is only an image by its alt text; text beside an image wins', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'logo.md');
    fs.writeFileSync(file, '# ![DocQA logo](logo.png)\n\nIntro.\n\n## Setup ![build](badge.svg)\n\nSteps.\n\n## ![](empty-alt.png)\n\nMore.\n');
    const d = await ingestOk(file);
    assert.equal(d.title, 'DocQA logo');
    assert.deepEqual(outline(d), [
      ['DocQA logo', 1],
      ['DocQA logo > Setup', 2],
      ['DocQA logo > (untitled)', 2],
    ]);
  });

  it('takes an HTML block that is one <h1>–<h6> element for a heading, as READMEs write their titles (a logo’s alt text for one)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'README.md');
    fs.writeFileSync(
      file,
      '<h1 align="center">\n  <img src="logo.png" width="200"><br>\n  Project &amp; Co\n</h1>\n\n<p align="center">A tool.</p>\n\n## Install\n\nRun it.\n\n<h2>Usage</h2>\n\nUse it.\n\n<h3>Not alone</h3>\n<p>An HTML block of two elements stays text.</p>\n\n<h2 align="center"><img width="250" src="api.svg" alt="Bob\'s API"></h2>\n\nCall it.\n',
    );
    const d = await ingestOk(file);
    assert.equal(d.title, 'Project & Co');
    assert.deepEqual(outline(d), [
      ['Project & Co', 1],
      ['Project & Co > Install', 2],
      ['Project & Co > Usage', 2],
      ['Project & Co > Bob\'s API', 2],
    ]);
    assert.deepEqual(blockView(d), [
      ['Project & Co', 'L6-6', '<p align="center">A tool.</p>'],
      ['Project & Co > Install', 'L10-10', 'Run it.'],
      ['Project & Co > Usage', 'L14-14', 'Use it.'],
      ['Project & Co > Usage', 'L16-17', '<h3>Not alone</h3>\n<p>An HTML block of two elements stays text.</p>'],
      ['Project & Co > Bob\'s API', 'L21-21', 'Call it.'],
    ]);
  });

  it('makes headings written as bullets (Logseq outlines) sections, the items under them their blocks; a title:: property titles the page', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'biology___cells.md');
    fs.writeFileSync(
      file,
      'title:: biology/cells\ntags:: biology\n\n- Intro item.\n- ## Membranes\n\t- A phospholipid bilayer.\n\t- ### Proteins\n\t\t- Integral proteins span it.\n- ## Mitochondria\n\t- Site of respiration.\n\t- Own DNA.\n',
    );
    const d = await ingestOk(file);
    assert.equal(d.title, 'biology/cells');
    assert.deepEqual(outline(d), [
      ['(preamble)', 1],
      ['Membranes', 1],
      ['Membranes > Proteins', 2],
      ['Mitochondria', 1],
    ]);
    assert.deepEqual(blockView(d), [
      ['(preamble)', 'L1-2', 'title:: biology/cells\ntags:: biology'],
      ['(preamble)', 'L4-4', '- Intro item.'],
      ['Membranes', 'L6-6', '- A phospholipid bilayer.'],
      ['Membranes > Proteins', 'L8-8', '- Integral proteins span it.'],
      ['Mitochondria', 'L10-11', '- Site of respiration.\n\t- Own DNA.'],
    ]);
    assert.deepEqual(
      d.sections.map((s) => [s.first_sentence, s.location]),
      [
        ['', null],
        ['A phospholipid bilayer.', { kind: 'lines', line_start: 5, line_end: 5 }],
        ['Integral proteins span it.', { kind: 'lines', line_start: 7, line_end: 7 }],
        ['Site of respiration.', { kind: 'lines', line_start: 9, line_end: 9 }],
      ],
    );
    fs.writeFileSync(file, 'Text first.\ntitle:: not page properties\n');
    assert.equal((await ingestOk(file)).title, 'biology___cells', 'only leading property lines are page properties');
  });

  it('leaves out a table-of-contents directive ([TOC], [[toc]], [[_TOC_]], ${toc}), which editors replace by the headings, and an Obsidian %% comment %% paragraph', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'notes.md');
    fs.writeFileSync(file, '[TOC]\n\n# 细胞\n\n[[toc]]\n\n正文。\n\n[[_TOC_]]\n\n${toc}\n\nSee [TOC] in text.\n\n%% an Obsidian comment,\nhidden as HTML comments are %%\n');
    const d = await ingestOk(file);
    assert.deepEqual(outline(d), [['细胞', 1]]);
    assert.deepEqual(blockView(d), [
      ['细胞', 'L7-7', '正文。'],
      ['细胞', 'L13-13', 'See [TOC] in text.'],
    ]);
  });

  it('leaves out a generated table of contents: a list, nested or not, whose every item is only a link to a heading of the page', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'net.md');
    fs.writeFileSync(
      file,
      [
        '# 计算机网络',
        '',
        '* [计算机网络](#计算机网络)',
        '  * [TCP 的三次握手](#tcp-的三次握手)',
        '    1. [为什么是三次](#为什么是三次)',
        '  * [`UDP`](#udp "UDP")',
        '',
        '本篇整理传输层。',
        '',
        '- [操作系统](#%E6%93%8D%E4%BD%9C%E7%B3%BB%E7%BB%9F)',
        '- [死锁](#%E6%AD%BB%E9%94%81)',
        '',
        '## TCP 的三次握手',
        '',
        '1. [SYN](#syn)',
        '2. [SYN+ACK](#synack)',
        '',
        '参考：',
        '',
        '- [RFC 793](https://www.rfc-editor.org/rfc/rfc793)',
        '- [上一节](#计算机网络)',
        '',
        '混合：',
        '',
        '- [三次握手](#tcp-的三次握手) 见下文',
        '- [四次挥手](#四次挥手)',
        '',
        '又一个：',
        '',
        '- [UDP](#udp)',
        '- 面向报文',
        '',
        '带代码：',
        '',
        '- [TCP](#tcp)',
        '  ```',
        '  SYN',
        '  ```',
        '',
      ].join('\n'),
    );
    const d = await ingestOk(file);
    assert.deepEqual(blockView(d), [
      ['计算机网络', 'L8-8', '本篇整理传输层。'],
      ['计算机网络 > TCP 的三次握手', 'L18-18', '参考：'],
      ['计算机网络 > TCP 的三次握手', 'L20-21', '- [RFC 793](https://www.rfc-editor.org/rfc/rfc793)\n- [上一节](#计算机网络)'],
      ['计算机网络 > TCP 的三次握手', 'L23-23', '混合：'],
      ['计算机网络 > TCP 的三次握手', 'L25-26', '- [三次握手](#tcp-的三次握手) 见下文\n- [四次挥手](#四次挥手)'],
      ['计算机网络 > TCP 的三次握手', 'L28-28', '又一个：'],
      ['计算机网络 > TCP 的三次握手', 'L30-31', '- [UDP](#udp)\n- 面向报文'],
      ['计算机网络 > TCP 的三次握手', 'L33-33', '带代码：'],
      ['计算机网络 > TCP 的三次握手', 'L35-38', '- [TCP](#tcp)\n  ```\n  SYN\n  ```'],
    ]);
    const first = Object.fromEntries(d.sections.map((x) => [x.path, x.first_sentence]));
    assert.equal(first['计算机网络'], '本篇整理传输层。', 'a table of contents is no first sentence');
  });

  it('leaves out MDX’s import/export statements and {/* comments */}, which are code; in .md they are text', async () => {
    const dir = tempDir();
    const source =
      "---\ntitle: Installation\n---\nimport Tabs from '@theme/Tabs';\nimport TabItem from \"@theme/TabItem\";\nexport const Note = ({children}) => (\n  <b>{children}</b>\n);\n\n# Installation\n\nImport the data first; export it later.\n\n<Tabs>\n<TabItem value=\"npm\">\n\n```bash\nnpm install docqa\n```\n\n</TabItem>\n</Tabs>\n\n{/* written by the docs team */}\n\nimport the rest by hand.\n";
    fs.writeFileSync(path.join(dir, 'install.mdx'), source);
    fs.writeFileSync(path.join(dir, 'install.md'), source);
    const mdx = await ingestOk(path.join(dir, 'install.mdx'));
    assert.deepEqual(outline(mdx), [['Installation', 1]]);
    assert.deepEqual(blockView(mdx), [
      ['Installation', 'L12-12', 'Import the data first; export it later.'],
      ['Installation', 'L17-19', '```bash\nnpm install docqa\n```'],
      ['Installation', 'L26-26', 'import the rest by hand.'],
    ]);
    const md = await ingestOk(path.join(dir, 'install.md'));
    assert.deepEqual(
      blockView(md).map((b) => b[1]),
      ['L4-8', 'L12-12', 'L17-19', 'L24-24', 'L26-26'],
    );
  });
});
