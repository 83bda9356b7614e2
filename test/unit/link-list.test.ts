import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLinkList } from '../../src/index/blocks/link-list';
import { buildBlocks } from '../../src/index/blocks/blocker';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';

describe('link lists', () => {
  it('a reference list, a "read this in other languages" line, a README’s list of pages and a lone reference are link lists', () => {
    assert.ok(isLinkList('- [Wikipedia](https://en.wikipedia.org/wiki/Linked_list)\n- [YouTube](https://www.youtube.com/watch?v=njTh_OwMljA&index=2&t=1s)'));
    assert.ok(isLinkList('_Read this in other languages:_\n[_简体中文_](README.zh-CN.md),\n[_Русский_](README.ru-RU.md),\n[_日本語_](README.ja-JP.md)'));
    assert.ok(isLinkList('- [谢希仁《计算机网络》](https://book.douban.com/subject/26960678/)\n- [RFC 793](https://www.rfc-editor.org/rfc/rfc793)'));
    assert.ok(isLinkList('* [Linked List](src/data-structures/linked-list)\n* [Doubly Linked List](src/data-structures/doubly-linked-list)\n* [Queue](src/data-structures/queue)'));
    assert.ok(isLinkList('- [Wikipedia](https://en.wikipedia.org/wiki/Trie)'));
    assert.ok(isLinkList('相关阅读：[[Java 集合]]、[[HashMap 源码]]'));
    assert.ok(isLinkList('- https://example.com/a\n- https://example.com/b'));
  });

  it('prose with links, an annotated list, an image, code holding URLs and a link with a sentence around it are content', () => {
    assert.ok(!isLinkList('See [the docs](https://example.com/docs) for how the cache evicts entries, and why the oldest entry goes first.'));
    assert.ok(!isLinkList('- [Wikipedia](https://en.wikipedia.org/wiki/X): the article explains insertion and deletion with diagrams\n- [Lecture](https://example.com/l): covers amortised analysis of dynamic arrays'));
    assert.ok(!isLinkList('![Linked List](./images/linked-list.jpeg)'));
    assert.ok(!isLinkList("```js\nfetch('https://a.example.com')\nfetch('https://b.example.com')\n```"));
    assert.ok(!isLinkList('_Read this in other languages:_ [_Português_](README.pt-BR.md)'));
    assert.ok(!isLinkList('A linked list is a linear collection of data elements.'));
  });

  it('a link list stays a block of its own: it is not merged into the introduction after it', () => {
    const units = [
      { section: 0, kind: 'prose' as const, text: '_Read this in other languages:_\n[_简体中文_](README.zh-CN.md),\n[_Русский_](README.ru-RU.md)', location: { kind: 'lines' as const, line_start: 3, line_end: 5 } },
      { section: 0, kind: 'prose' as const, text: 'A linked list is a linear collection of data elements.', location: { kind: 'lines' as const, line_start: 7, line_end: 7 } },
      { section: 0, kind: 'prose' as const, text: 'Each element points to the next.', location: { kind: 'lines' as const, line_start: 9, line_end: 9 } },
    ];
    const blocks = buildBlocks(units, DEFAULT_INGEST_OPTIONS.chunking);
    assert.deepEqual(
      blocks.map((b) => b.text),
      ['_Read this in other languages:_\n[_简体中文_](README.zh-CN.md),\n[_Русский_](README.ru-RU.md)', 'A linked list is a linear collection of data elements.\n\nEach element points to the next.'],
    );
  });
});
