import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { EmbeddingConfig } from '../../src/index/embed/embedding-client';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { type LoadedSnapshot, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { runTool } from '../../src/tools/registry';
import { tempDir } from '../helpers';

/**
 * search_blocks finds the section, not five copies of its neighbour (issue 31 item 10): on a real
 * keyword-only snapshot, through the tool. Link lists rank below the content that matches as well; one
 * section does not fill the top 5 while others match; the rare Latin word of a mixed query carries as
 * much as its Chinese filler.
 */
let snap: LoadedSnapshot;
const files: Record<string, string> = {
  'README.md': `# Algorithms\n\n## Data structures\n\n${['Linked List', 'Doubly Linked List', 'Circular Linked List', 'Queue', 'Stack', 'Hash Table'].map((t) => `* [${t}](src/${t.toLowerCase().replace(/ /g, '-')})`).join('\n')}\n`,
  'linked-list.md': `# Linked List\n\n_Read this in other languages:_\n[_简体中文_](README.zh-CN.md),\n[_Русский_](README.ru-RU.md)\n\nA linked list is a linear collection of nodes, each pointing to the next node of the list.\n\n## Complexity\n\nAccess in a linked list is O(n); insertion at the head is O(1).\n\n## References\n\n- [Linked list on Wikipedia](https://en.wikipedia.org/wiki/Linked_list)\n- [Linked list on YouTube](https://www.youtube.com/watch?v=njTh_OwMljA)\n`,
  // Six blocks of one section (each paragraph over the blocker's minimum, so none merge), and one of another.
  'hashing.md': `# Hashing\n\n## Open addressing\n\n${Array.from({ length: 6 }, (_, i) => `Probe step ${i + 1}. When a hash collision happens in the table, open addressing looks at the next slot of the table; the probe sequence wraps around the end of the table, and the table must never be completely full, or the probing would never end. Deleting needs a tombstone in the table.`).join('\n\n')}\n\n## Chaining\n\nChaining keeps a list of entries in each slot: after a hash collision the new entry joins that list.\n`,
  'java.md': `# Java 关键字\n\n## 关键字的作用\n\n关键字的作用是告诉编译器如何处理代码。关键字的作用各不相同，关键字的作用要分别记。\n\n## volatile\n\nvolatile 保证变量在线程之间的可见性，并禁止指令重排序。\n`,
};

async function top(query: string): Promise<string[]> {
  const p = await runTool('search_blocks', { query }, { snapshot: snap });
  return (p.blocks as Array<{ doc_title: string; section_path: string; text: string }>).map((b) => `${b.section_path}: ${b.text.split('\n')[0]!.slice(0, 40)}`);
}

describe('search_blocks ranking', () => {
  before(async () => {
    const folder = tempDir('docqa-ranking-');
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, name), text);
    const dir = new DataDir(path.join(tempDir(), 'store'));
    await addSources(dir, [folder]);
    await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: EmbeddingConfig.parse({ provider: 'none' }), embeddingApiKey: '' });
    snap = (await loadActiveSnapshot(dir))!;
  });

  it('a list of links to every page and a reference list named "linked list" more often than the page about it, and came first: the content does', async () => {
    const t = await top('linked list');
    assert.match(t[0]!, /^Linked List: A linked list is a linear collection/);
    assert.match(t[1]!, /^Linked List > Complexity: /);
    // Still found, after the content: a link list is a block like any other.
    assert.ok(t.slice(2).some((l) => l.startsWith('Algorithms > Data structures: * [Linked List]')), t.join('\n'));
    assert.ok(t.slice(2).some((l) => l.startsWith('Linked List > References: ')), t.join('\n'));
  });

  it('five blocks of one section filled the top 5: the other section that matches is in it', async () => {
    const t = await top('hash collision table');
    assert.match(t[0]!, /^Hashing > Open addressing: /);
    assert.ok(t.some((l) => l.startsWith('Hashing > Chaining: ')), t.join('\n'));
  });

  it('a mixed query was decided by its Chinese filler: its rare Latin word carries as much, and its section comes first', async () => {
    const t = await top('volatile 关键字的作用');
    assert.match(t[0]!, /^Java 关键字 > volatile: /);
  });
});
