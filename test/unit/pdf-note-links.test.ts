/** A saved note's PDF citation links, found in its Markdown for DocQA's link provider (pdf-link.ts; the provider is src/vscode/pdf-note-links.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spotLink } from '../../src/app/notes/answer-markdown';
import { pdfNoteLinks } from '../../src/shared/pdf-link';

describe("a saved note's PDF links", () => {
  it('finds the links a note writes (the target, its page and block), and leaves other links to Markdown', () => {
    const pdf = { doc_title: 'Leaf', section_path: 'Light', path: '/w/my notes/p.pdf', location: { kind: 'page' as const, page: 3 }, ref: 'leaf-1a2b#b7' };
    const target = spotLink(pdf, '/w/kept');
    const text = `Light is absorbed. [1](${target})\n\n1. [Leaf § Light, p. 3](${target})\n2. [Cells](../c.md#L4)\n3. [Other](./x.pdf#page=2)\n`;
    const links = pdfNoteLinks(text);
    assert.equal(links.length, 2);
    for (const l of links) {
      assert.equal(text.slice(l.start, l.end), target);
      assert.deepEqual([l.href, l.page, l.ref], ['../my%20notes/p.pdf', 3, 'leaf-1a2b#b7']);
    }
    assert.deepEqual(pdfNoteLinks('[a](file:///w/p.pdf#page=9&docqa=d%23b1)').map((l) => [l.href, l.page, l.ref]), [['file:///w/p.pdf', 9, 'd#b1']]);
  });
});
