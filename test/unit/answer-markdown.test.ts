import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileLink, noteFileName, spotLink, turnMarkdown } from '../../src/app/notes/answer-markdown';
import { parsePdfFragment, pdfFragment } from '../../src/shared/pdf-link';
import { doneTurn, result } from '../fakes/chat-fixtures';

describe('an answer as Markdown: citations as links to the cited spot', () => {
  it('links are relative to the note folder (each segment encoded) or file:// URLs; lines as #L, a PDF page as #page=', () => {
    assert.equal(fileLink('/home/u/my notes/a [1].md', '/home/u/kept'), '../my%20notes/a%20%5B1%5D.md');
    assert.equal(fileLink('/home/u/kept/x.md', '/home/u/kept'), './x.md');
    assert.equal(fileLink('/home/u/my notes/a.md', null), 'file:///home/u/my%20notes/a.md');
    const lines = { doc_title: 'Cells', section_path: 'A > B', path: '/n/c.md', location: { kind: 'lines' as const, line_start: 4, line_end: 4 } };
    assert.equal(spotLink(lines, '/n'), './c.md#L4');
    assert.equal(spotLink({ ...lines, location: { kind: 'lines', line_start: 4, line_end: 9 } }, '/n'), './c.md#L4-L9');
    assert.equal(spotLink({ ...lines, path: '/n/p.pdf', location: { kind: 'page', page: 3 } as never }, '/n'), './p.pdf#page=3');
  });

  it("a PDF link names the cited block after the page (docqa=, the ref encoded), which DocQA's page view reads back to highlight it; other viewers read the page", () => {
    const pdf = { doc_title: 'Leaf', section_path: 'Light', path: '/n/p.pdf', location: { kind: 'page' as const, page: 3 }, ref: 'leaf-1a2b#b7' };
    const link = spotLink(pdf, '/n');
    assert.equal(link, './p.pdf#page=3&docqa=leaf-1a2b%23b7');
    assert.deepEqual(parsePdfFragment(link.split('#').slice(1).join('#')), { page: 3, ref: 'leaf-1a2b#b7' });
    assert.equal(pdfFragment(3), 'page=3');
    // What the view takes from a link someone else wrote: the page when it is a page number, a ref only when it is one.
    assert.deepEqual(parsePdfFragment('page=12&zoom=100'), { page: 12 });
    assert.deepEqual(parsePdfFragment('#page=0&docqa=nohash'), {});
    assert.deepEqual(parsePdfFragment('page=x&docqa=%E0%A4%A'), {});
    assert.deepEqual(parsePdfFragment('nameddest=intro'), {});
  });

  it('a Word paragraph, an e-book chapter or a slide links to its file and says where in the link text', () => {
    const spot = (location: object, file: string) => ({ doc_title: 'Guide', section_path: 'Light', path: `/n/${file}`, location: location as never });
    assert.equal(spotLink(spot({ kind: 'paragraphs', first: 3, last: 5 }, 'g.docx'), '/n'), './g.docx');
    const md = (location: object, file: string, lang: 'en' | 'zh') =>
      turnMarkdown(doneTurn('t1', 'Q?', result()), new Map([['cell#b3', spot(location, file)], ['cell#b4', null]]), { linkBase: '/n', lang, madeAt: '2026-01-02T03:04:05.000Z' });
    assert.ok(md({ kind: 'paragraphs', first: 3, last: 5 }, 'g.docx', 'en').includes('1. [Guide § Light, ¶ 3–5](./g.docx)'));
    assert.ok(md({ kind: 'chapter', chapter: 2, first: 4, last: 4 }, 'b.epub', 'en').includes('1. [Guide § Light, chapter 2, ¶ 4](./b.epub)'));
    assert.ok(md({ kind: 'slide', slide: 7, first: 1, last: 2 }, 'd.pptx', 'zh').includes('1. [Guide § Light, 第 7 张幻灯片](./d.pptx)'));
  });

  it('markers become numbered links in citation order; a block gone from the knowledge base is listed without a link', () => {
    const spots = new Map([['cell#b3', { doc_title: 'Cell biology', section_path: 'Membranes > Osmosis', path: '/n/cell.md', location: { kind: 'lines' as const, line_start: 2, line_end: 5 } }], ['cell#b4', null]]);
    const md = turnMarkdown(doneTurn('t1', 'What is [osmosis]?', result()), spots, { linkBase: '/n', lang: 'en', madeAt: '2026-01-02T03:04:05.000Z' });
    assert.equal(md, ['# What is \\[osmosis\\]?', '', 'Osmosis moves **water** across a membrane. [1](./cell.md#L2-L5)\n\nDiffusion moves solutes. [2]', '', '**Sources**', '', '1. [Cell biology § Osmosis, lines 2–5](./cell.md#L2-L5)', '2. Cell biology § Diffusion (no longer in the knowledge base)', ''].join('\n'));
  });

  it('a note file name keeps the question’s words and drops what file systems refuse', () => {
    assert.equal(noteFileName('What is a\u0000 cell? <b>#1</b>', '2026-01-02T03:04:05.000Z'), '2026-01-02 What is a cell b 1 b.md');
    assert.equal(noteFileName('???', '2026-01-02T03:04:05.000Z'), '2026-01-02 DocQA note.md');
    assert.equal([...noteFileName('长'.repeat(100), '2026-01-02T03:04:05.000Z')].length, 11 + 60 + 3);
  });
});
