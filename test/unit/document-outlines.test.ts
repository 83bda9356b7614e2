import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StoreError } from '../../src/common/errors';
import { Slicer } from '../../src/common/slicer';
import type { Document, Section } from '../../src/shared/document';
import { sectionCount, sectionsSpan } from '../../src/index/store/document-outlines';
import { SEGMENT_FILES_2 } from '../../src/index/store/segment-format';
import { readStoredDocuments } from '../../src/index/store/segment-reader';
import { storedDocument } from '../../src/index/store/segment-writer';
import { SEGMENT_FORMAT_VERSION_2 } from '../../src/index/store/snapshot-manifest';
import { tempDir } from '../helpers';

/** Strings a line's outline must survive: the key itself, brackets, quotes, backslashes, CJK, astral characters. */
const hostile = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('"sections":[', '"sections":', '],"blocks":3}', '\\', '\\"', '"]}', '{[', '光合作用。', '𝔘 "q" \\n', ''),
  fc.array(fc.constantFrom('"sections":[', ']', '}', '{', '[', '\\', '"', 'x', '章'), { maxLength: 8 }).map((a) => a.join('')),
);

function section(title: string, sentence: string, ordinal: number): Section {
  return { path: `Doc › ${title}`, title, ordinal, depth: 1, parent_path: null, direct_blocks: 1, subtree_blocks: 1, direct_tokens: 5, subtree_tokens: 5, first_sentence: sentence, location: ordinal % 2 ? null : { kind: 'lines', line_start: ordinal, line_end: ordinal + 1 } };
}

function document(i: number, title: string, sections: Section[], extra: Partial<Document> = {}): Document {
  return { doc_id: `d${i}`, path: `/notes/${i}.md`, title, source_label: 'notes', aliases: [title], lang: 'mixed', format: 'markdown', content_hash: `h${i}`, byte_size: 10, encoding: 'utf-8', page_count: null, sections, blocks: [], ...extra };
}

/** documents.jsonl as the segment writer writes it: the version line, then a document per line. */
function writeLines(folder: string, docs: readonly Document[], line: (d: Document) => string = (d) => JSON.stringify(storedDocument(d))): string {
  const file = path.join(folder, SEGMENT_FILES_2.documents);
  fs.writeFileSync(file, `${JSON.stringify({ formatVersion: SEGMENT_FORMAT_VERSION_2 })}\n${docs.map((d) => `${line(d)}\n`).join('')}`);
  return file;
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
const corruptNaming = (file: string, docId?: string) => (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt' && e.message.includes(file) && (docId === undefined || e.message.includes(docId));

describe('document outlines left in documents.jsonl', () => {
  it('read back exactly, whatever their strings hold, across line pieces (a line longer than a piece included)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(hostile, fc.array(fc.tuple(hostile, hostile), { maxLength: 4 })), { minLength: 1, maxLength: 6 }), async (spec) => {
        const folder = tempDir('docqa-outlines-');
        const docs = spec.map(([title, secs], i) => document(i, title, secs.map(([t, s], k) => section(t, s, k + 1)), i % 2 ? { unread_pages: [{ page: 1, code: 'no_text', reason: title }] } : {}));
        writeLines(folder, docs);
        const loaded = await readStoredDocuments(folder, new Slicer());
        // Counted as the line was read, the outline left in the file.
        loaded.forEach((d, i) => assert.equal(sectionCount(d), docs[i]!.sections.length));
        assert.ok(loaded.every((d) => Object.getOwnPropertyDescriptor(d, 'sections')?.get));
        assert.deepEqual(plain(loaded), plain(docs.map(storedDocument)));
        fs.rmSync(folder, { recursive: true, force: true });
      }),
      { numRuns: 150 },
    );
    // 2,000 sections of long sentences: one line of ~700 KB, far past a 256 KB piece, between short ones.
    const folder = tempDir('docqa-outlines-');
    const long = Array.from({ length: 2_000 }, (_, k) => section(`Section ${k} "x" [y]`, `${'光合作用把光能转化为化学能。'.repeat(10)} ${k}`, k + 1));
    const docs = [document(0, 'a', [section('A', 's', 1)]), document(1, 'b', long), document(2, 'c', [section('C', '"sections":[', 1)])];
    writeLines(folder, docs);
    assert.ok(fs.statSync(path.join(folder, SEGMENT_FILES_2.documents)).size > 3 * 256 * 1024);
    assert.deepEqual(plain(await readStoredDocuments(folder, new Slicer())), plain(docs.map(storedDocument)));
  });

  it('an outline is read when first asked for, then kept; one whose key comes first reads the same', async () => {
    const folder = tempDir('docqa-outlines-');
    const docs = [document(0, 'T', [section('One', 'First.', 1), section('Two', 'Second.', 2)])];
    // Key order as another writer might have left it: sections before the other fields.
    writeLines(folder, docs, (d) => {
      const { sections, ...rest } = storedDocument(d);
      return JSON.stringify({ sections, ...rest });
    });
    const [doc] = await readStoredDocuments(folder, new Slicer());
    assert.equal(typeof Object.getOwnPropertyDescriptor(doc!, 'sections')?.get, 'function', 'not parsed at load');
    assert.deepEqual(plain(doc!.sections), plain(docs[0]!.sections));
    assert.equal(Object.getOwnPropertyDescriptor(doc!, 'sections')?.get, undefined, 'then a plain property');
    assert.deepEqual(plain({ ...doc! }), plain(storedDocument(docs[0]!)));
  });

  it('a damaged outline is store_corrupt naming the file and the document when read; a broken line when loaded', async () => {
    const folder = tempDir('docqa-outlines-');
    const docs = [document(0, 'T', [section('One', 'First.', 1)]), document(1, 'U', [section('Two', 'Second.', 1)])];
    // Valid JSON, wrong schema: the load (which does not read outlines) succeeds; the outline does not.
    const file = writeLines(folder, docs, (d) => JSON.stringify(storedDocument(d)).replace(d.doc_id === 'd1' ? '"depth":1' : '\0', '"depth":"deep"'));
    const loaded = await readStoredDocuments(folder, new Slicer());
    assert.deepEqual(plain(loaded[0]!.sections), plain(docs[0]!.sections));
    assert.throws(() => loaded[1]!.sections, corruptNaming(file, 'd1'));
    assert.throws(() => JSON.stringify(loaded), corruptNaming(file, 'd1'));
    // A bracket gone: the outline does not close inside its line, and the line is damaged at load.
    writeLines(folder, docs, (d) => JSON.stringify(storedDocument(d)).replace(d.doc_id === 'd1' ? '}]' : '\0', '}'));
    await assert.rejects(readStoredDocuments(folder, new Slicer()), corruptNaming(file));
    // The file cut short after the load: the outline's read names what happened.
    writeLines(folder, docs);
    const again = await readStoredDocuments(folder, new Slicer());
    fs.truncateSync(file, 100);
    assert.throws(() => again[1]!.sections, corruptNaming(file, 'd1'));
  });

  it('finds the span of the array the key names, and nothing for a value that is not an array closed in the line', () => {
    const b = (s: string) => Buffer.from(s);
    const span = (s: string) => {
      const r = sectionsSpan(b(s), 0, b(s).length);
      return r && b(s).subarray(r[0], r[1]).toString();
    };
    assert.equal(span('{"title":"a \\"sections\\":[ ]","sections":[{"t":"]}\\\\"}],"blocks":1}'), '[{"t":"]}\\\\"}]');
    assert.equal(span('{"sections":[],"blocks":0}'), '[]');
    const line = b('{"sections":[{"a":{"b":[{}]}},{"t":"{{"},{}],"blocks":0}');
    assert.equal(sectionsSpan(line, 0, line.length)?.[2], 3, 'the objects directly in the array');
    assert.equal(span('{"sections":null,"blocks":0}'), null);
    assert.equal(span('{"sections":[{"t":1}'), null);
    assert.equal(span('{"title":"x","blocks":0}'), null);
  });
});
