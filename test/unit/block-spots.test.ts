import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spotLink } from '../../src/app/block-spots';
import { promptSection } from '../../src/app/citation-rules';

describe('block spots for readers outside DocQA', () => {
  it('links each kind of location with the fragment a viewer understands, the path percent-encoded', () => {
    assert.equal(spotLink('/notes/cell notes.md', { kind: 'lines', line_start: 3, line_end: 5 }), 'file:///notes/cell%20notes.md#L3-L5');
    assert.equal(spotLink('/notes/a.md', { kind: 'lines', line_start: 7, line_end: 7 }), 'file:///notes/a.md#L7');
    assert.equal(spotLink('/books/细胞 #1.pdf', { kind: 'page', page: 2 }), 'file:///books/%E7%BB%86%E8%83%9E%20%231.pdf#page=2');
    // Rendered documents: no fragment a viewer would understand; the location says where.
    assert.equal(spotLink('/b/book.epub', { kind: 'chapter', chapter: 3, first: 2, last: 4 }), 'file:///b/book.epub');
    assert.equal(spotLink('/b/deck.pptx', { kind: 'slide', slide: 4, first: 1, last: 1 }), 'file:///b/deck.pptx');
    assert.equal(spotLink('/b/page.docx', { kind: 'paragraphs', first: 1, last: 9 }), 'file:///b/page.docx');
  });

  it('takes a section of a prompt template whole, tags included, and nothing of a tag that only looks alike', () => {
    const t = '<role>\nr\n</role>\n<citation>\n1. a\n2. b\n</citation>\n<answer>\nx <citation> y\n</answer>\n';
    assert.equal(promptSection(t, 'citation'), '<citation>\n1. a\n2. b\n</citation>');
    assert.equal(promptSection(t, 'answer'), '<answer>\nx <citation> y\n</answer>');
    assert.equal(promptSection(t, 'coverage'), null);
  });
});
