import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { askableSection, startingQuestions } from '../../src/app/starting-questions';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { type Document } from '../../src/shared/document';
import { globalBlockOrder } from '../../src/index/store/snapshot-store';
import { fixture } from '../helpers';

/** Documents with their block ranges, as a loaded snapshot has them. */
const ranged = (documents: Document[]) => ({ documents, docRanges: globalBlockOrder(documents).docRanges });

describe('starting questions: drawn from the knowledge base, in the UI language, the same for the same snapshot', () => {
  let docs: Document[] = [];
  before(async () => {
    const files = [fixture('markdown', 'cell-notes.md'), fixture('markdown', 'zh-history.md'), fixture('text', 'study-plan.txt'), fixture('markdown', 'vue-en', 'plugins.md')];
    docs = [];
    for (const [i, f] of files.entries()) {
      const out = await ingestFile(f, { doc_id: `d${i + 1}`, source_label: 'notes', aliases: [] }, DEFAULT_INGEST_OPTIONS);
      assert.ok(out.ok, f);
      docs.push(out.document);
    }
  });

  it('one question per document, about its largest askable section, scoped to that document', () => {
    const qs = startingQuestions(ranged(docs), 'en');
    assert.equal(qs.length, 4);
    assert.deepEqual(new Set(qs.map((q) => q.doc_id)).size, 4, 'four different documents');
    for (const q of qs) {
      const doc = docs.find((d) => d.doc_id === q.doc_id)!;
      assert.ok(q.question.includes(`“${doc.title}”`), q.question);
      if (q.section) {
        assert.ok(q.question.includes(q.section), q.question);
        assert.ok(doc.sections.some((s) => s.title.trim() === q.section && askableSection(s, doc)));
      }
    }
    const cell = qs.find((q) => q.doc_title === 'Cell Biology Notes')!;
    // "Setup" names a part of every document, "Cells" is the biggest topic after it.
    assert.notEqual(cell.section, 'Setup');
  });

  it('in Chinese for a Chinese UI; the same knowledge base gives the same questions whatever the order it is listed in', () => {
    const zh = startingQuestions(ranged(docs), 'zh');
    assert.ok(zh.every((q) => /[《“]/.test(q.question) && /[？。]$/.test(q.question)), JSON.stringify(zh));
    assert.deepEqual(startingQuestions(ranged([...docs].reverse()), 'zh'), zh);
    assert.deepEqual(startingQuestions(ranged(docs), 'en', 2), startingQuestions(ranged(docs), 'en').slice(0, 2));
  });

  it('the order follows each document’s id and content (an edited note may move), never the listing order; an empty knowledge base offers nothing', () => {
    const firsts = new Set<string>();
    for (let v = 0; v < 256; v++) firsts.add(startingQuestions(ranged(docs.map((d) => (d.doc_id === 'd1' ? { ...d, content_hash: `edit-${v}` } : d))), 'en', 1)[0]!.doc_id);
    assert.ok(firsts.has('d1') && firsts.size > 1, `the first question's document depends on d1's content: ${[...firsts]}`);
    assert.deepEqual(startingQuestions(ranged([]), 'en'), []);
  });

  it('generic headings and numbers are not asked about', () => {
    const doc = docs[0]!;
    const s = (title: string, depth = 1) => ({ ...doc.sections[0]!, title, depth, subtree_blocks: 3 });
    assert.equal(askableSection(s('References'), doc), false);
    assert.equal(askableSection(s('参考文献'), doc), false);
    assert.equal(askableSection(s('2.1'), doc), false);
    assert.equal(askableSection(s(doc.title), doc), false);
    assert.equal(askableSection(s('Mitochondria', 5), doc), false);
    assert.equal(askableSection(s('Mitochondria'), doc), true);
  });
});
