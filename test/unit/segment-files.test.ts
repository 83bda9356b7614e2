import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { StoreError } from '../../src/common/errors';
import { Slicer } from '../../src/common/slicer';
import type { Document } from '../../src/shared/document';
import { Bm25Index } from '../../src/index/search/bm25-index';
import { buildBm25, keywordFields } from '../../src/index/search/bm25-build';
import { quantizeRows } from '../../src/index/search/quantize';
import { normalizeRows } from '../../src/index/search/vector-index';
import { DocumentSpool, type SpooledDocument } from '../../src/index/store/build/document-spool';
import { serializeDocument } from '../../src/index/ingest/serialized-document';
import { SEGMENT_FILES_2 } from '../../src/index/store/segment-format';
import { readCodes, readSegmentDocuments2, readSegmentKeyword2 } from '../../src/index/store/segment-reader';
import { SegmentWriter } from '../../src/index/store/segment-writer';
import { PostingsCache } from '../../src/index/store/postings-cache';
import { StagedFolder } from '../../src/index/store/staged-folder';
import { hashEmbedding } from '../fakes/hash-embedding';
import { fixture, ingestOk, tempDir } from '../helpers';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';

// This test process parses PDFs itself, as an ingestion worker does (pdf.js runs in workers only).
preparePdfThread();

const DIMS = 32;

/** Real documents of every location kind (lines, pages, paragraphs, chapters, slides), Chinese and English, in doc_id order. */
async function documents(): Promise<Document[]> {
  const files = [
    fixture('markdown', 'cell-notes.md'),
    fixture('markdown', 'zh-history.md'),
    fixture('text', 'notes-gbk.txt'),
    fixture('pdf', 'photosynthesis-en.pdf'),
    fixture('pdf', 'photosynthesis-zh.pdf'),
    fixture('formats', 'photosynthesis.docx'),
    fixture('formats', 'photosynthesis.epub'),
    fixture('formats', 'respiration-slides.pptx'),
    fixture('formats', 'cell-biology-course.html'),
  ];
  const docs = await Promise.all(files.map((f) => ingestOk(f)));
  return docs.map((d, i) => ({ ...d, doc_id: `d${i}` }));
}

function rowsOf(docs: readonly Document[]): Float32Array {
  const texts = docs.flatMap((d) => d.blocks.map((b) => b.text));
  const m = new Float32Array(texts.length * DIMS);
  texts.forEach((t, i) => m.set(hashEmbedding(t, DIMS), i * DIMS));
  normalizeRows(m, DIMS);
  return m;
}

/**
 * Writes docs as one segment in batches of `per` documents; returns the folder. `streamed`: as a build
 * writes, one document at a time, each batch's keyword index added after the next batch's documents.
 */
async function writeSegment(root: string, docs: readonly Document[], per: number, matrix: Float32Array | null, streamed = false): Promise<string> {
  const name = `${per}${streamed ? '-streamed' : ''}`;
  const folder = path.join(root, `seg-${name}`);
  const staged = new StagedFolder(root);
  const blocks = docs.reduce((n, d) => n + d.blocks.length, 0);
  const w = await SegmentWriter.create(staged, folder, path.join(root, `scratch-${name}`), blocks, matrix ? DIMS : null);
  let row = 0;
  let waiting: { bm25: ReturnType<typeof buildBm25>; base: number } | null = null;
  const indexes: Array<ReturnType<typeof buildBm25>> = [];
  const released: Array<ReturnType<typeof buildBm25>> = [];
  for (let i = 0; i < docs.length; i += per) {
    const batch = docs.slice(i, i + per);
    const n = batch.reduce((k, d) => k + d.blocks.length, 0);
    const { texts, headings } = keywordFields(batch);
    if (!streamed) await w.add(batch, matrix ? matrix.subarray(row * DIMS, (row + n) * DIMS) : null, buildBm25(texts, headings));
    else {
      let r = row;
      for (const d of batch) {
        await w.addDocument(d, matrix ? matrix.subarray(r * DIMS, (r + d.blocks.length) * DIMS) : null);
        r += d.blocks.length;
      }
      if (waiting) released.push(...(await w.addKeywordIndex(waiting.bm25, waiting.base)));
      waiting = { bm25: buildBm25(texts, headings), base: row };
      indexes.push(waiting.bm25);
    }
    row += n;
  }
  if (waiting) {
    await assert.rejects(w.finish(), /without their keyword index/, 'a segment is not finished with blocks left unindexed');
    released.push(...(await w.addKeywordIndex(waiting.bm25, waiting.base)));
    // Each index is given back once it is in a run file (the first waits for a second); a lone one is kept.
    assert.deepEqual(released, indexes.length > 1 ? indexes : [], 'the indexes the writer is done with, each once, in order');
  }
  assert.deepEqual(await w.finish(), { documents: docs.length, blocks });
  await staged.sync();
  assert.equal(fs.existsSync(path.join(root, `scratch-${name}`)), false, 'the run files are gone');
  return folder;
}

/** Every document of `records`, parsed, in their order. */
async function readAll(spool: DocumentSpool, records: readonly SpooledDocument[]): Promise<Document[]> {
  const batch = await spool.readBatch(records);
  return Array.from({ length: batch.length }, (_, i) => batch.parse(i));
}

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('format-2 segment files', () => {
  it('read back as written: documents (blocks, texts, locations, sections), keyword index and vectors; the same files whatever the batches', async () => {
    const root = tempDir();
    const docs = await documents();
    const matrix = rowsOf(docs);
    const one = await writeSegment(root, docs, docs.length, matrix);
    const each = await writeSegment(root, docs, 1, matrix);
    const streamed = await writeSegment(root, docs, 3, matrix, true);
    for (const name of Object.values(SEGMENT_FILES_2)) {
      assert.equal(sha(path.join(each, name)), sha(path.join(one, name)), name);
      assert.equal(sha(path.join(streamed, name)), sha(path.join(one, name)), `${name}, written a document at a time`);
    }

    const blocks = docs.reduce((n, d) => n + d.blocks.length, 0);
    const { documents: loaded, blockCounts } = await readSegmentDocuments2(each, blocks, new Slicer());
    assert.deepEqual(blockCounts, docs.map((d) => d.blocks.length));
    // Blocks are made when first read; spread or serialised, a document carries them.
    assert.equal(Object.getOwnPropertyDescriptor(loaded[0]!, 'blocks')?.get !== undefined, true);
    assert.deepEqual({ ...loaded[0]! }.blocks.length, docs[0]!.blocks.length);
    assert.equal(Object.getOwnPropertyDescriptor(loaded[0]!, 'blocks')?.get, undefined, 'then kept');
    assert.deepEqual(JSON.parse(JSON.stringify(loaded)), JSON.parse(JSON.stringify(docs)));
    for (const kind of ['page', 'lines', 'paragraphs', 'chapter', 'slide']) assert.ok(docs.some((d) => d.blocks.some((b) => b.location.kind === kind)), kind);
    // A block's fields, text included, read as on any block.
    const b = loaded[1]!.blocks[0]!;
    assert.deepEqual({ block_id: b.block_id, block_index: b.block_index, section_path: b.section_path, text: b.text, token_count: b.token_count, location: b.location }, docs[1]!.blocks[0]);

    const { texts, headings } = keywordFields(docs);
    const fresh = new Bm25Index(buildBm25(texts, headings));
    const fromDisk = new Bm25Index([{ data: await readSegmentKeyword2(each, blocks), toGlobal: null }], blocks);
    for (const q of ['photosynthesis light energy', '光合作用', 'cell membrane', '历史']) assert.deepEqual(fromDisk.score(q), fresh.score(q), q);

    const codes = new Int8Array(matrix.length);
    const scales = new Float32Array(blocks);
    quantizeRows(matrix, DIMS, codes, scales);
    const scorer = await readCodes(each, blocks, DIMS, 0, blocks);
    assert.deepEqual([...scorer.codes], [...codes]);
    assert.deepEqual([...scorer.scales], [...scales]);
    const part = await readCodes(each, blocks, DIMS, 3, 4);
    assert.deepEqual([...part.scales], [...scales.subarray(3, 7)]);
    assert.ok(Buffer.from(matrix.buffer).equals(fs.readFileSync(path.join(each, SEGMENT_FILES_2.vectors))));
  });

  it('a term whose postings outgrow the run reader\'s buffer merges whole (two batches of 140,000 blocks)', async () => {
    const root = tempDir();
    const doc = (id: string, n: number, word: string): Document => ({
      doc_id: id, path: `/${id}.md`, title: id, source_label: 's', aliases: [], lang: 'en', format: 'markdown', content_hash: id, byte_size: 1, encoding: 'utf-8', page_count: null,
      sections: [{ path: 'A', title: 'A', ordinal: 1, depth: 1, parent_path: null, direct_blocks: n, subtree_blocks: n, direct_tokens: n, subtree_tokens: n, first_sentence: '', location: null }],
      blocks: Array.from({ length: n }, (_, i) => ({ block_id: `b${i}`, block_index: i, section_path: 'A', text: `common ${word}${i % 3}`, token_count: 1, location: { kind: 'lines' as const, line_start: i + 1, line_end: i + 1 } })),
    });
    const docs = [doc('d1', 140_000, 'x'), doc('d2', 140_000, 'y')];
    const folder = await writeSegment(root, docs, 1, null);
    const cache = new PostingsCache(4 * 1024 * 1024);
    const k = await readSegmentKeyword2(folder, 280_000, cache);
    let id = -1;
    for (let t = 0; t < k.terms.length; t++) if (k.terms.at(t) === 'common') id = t;
    const p = k.postings(id);
    assert.equal(p.blocks.length, 280_000);
    assert.equal(k.postings(id), p, 'a large list read again comes from the cache');
    assert.equal(cache.size, 8 * 280_000);
    assert.ok(p.blocks.every((b, i) => b === i));
    const { texts, headings } = keywordFields(docs);
    const fresh = new Bm25Index(buildBm25(texts, headings));
    const fromDisk = new Bm25Index([{ data: k, toGlobal: null }], 280_000);
    for (const q of ['common', 'y1', 'x2 y0']) assert.deepEqual(fromDisk.search(q, 20).ranked, fresh.search(q, 20).ranked);
  });

  it('more batches than one merge takes (runs merged by level first) give the same files as one batch', async () => {
    const root = tempDir();
    const words = ['cell', 'membrane', 'energy', 'light', '光合', '作用', 'protein', 'enzyme'];
    const docs: Document[] = Array.from({ length: 150 }, (_, d) => ({
      doc_id: `d${String(d).padStart(4, '0')}`, path: `/n${d}.md`, title: `N${d}`, source_label: 's', aliases: [], lang: 'en', format: 'markdown', content_hash: `${d}`, byte_size: 1, encoding: 'utf-8', page_count: null,
      sections: [{ path: 'A', title: 'A', ordinal: 1, depth: 1, parent_path: null, direct_blocks: 3, subtree_blocks: 3, direct_tokens: 3, subtree_tokens: 3, first_sentence: '', location: null }],
      blocks: Array.from({ length: 3 }, (_, i) => ({ block_id: `b${i}`, block_index: i, section_path: 'A', text: `${words[(d + i) % 8]} ${words[(d * 3 + i) % 8]} item${d % 11}`, token_count: 3, location: { kind: 'page' as const, page: i + 1 } })),
    }));
    const one = await writeSegment(root, docs, docs.length, null);
    const each = await writeSegment(root, docs, 1, null);
    const streamed = await writeSegment(root, docs, 7, null, true);
    for (const name of [SEGMENT_FILES_2.keyword, SEGMENT_FILES_2.postings, SEGMENT_FILES_2.documents, SEGMENT_FILES_2.blocks]) {
      assert.equal(sha(path.join(each, name)), sha(path.join(one, name)), name);
      assert.equal(sha(path.join(streamed, name)), sha(path.join(one, name)), `${name}, written a document at a time`);
    }
  });

  it('a batch\'s keyword index must follow the one before and cover written blocks', async () => {
    const root = tempDir();
    const docs = (await documents()).slice(0, 3);
    const staged = new StagedFolder(root);
    const blocks = docs.reduce((n, d) => n + d.blocks.length, 0);
    const w = await SegmentWriter.create(staged, path.join(root, 'seg'), path.join(root, 'scratch'), blocks, null);
    const index = (ds: readonly Document[]) => {
      const { texts, headings } = keywordFields(ds);
      return buildBm25(texts, headings);
    };
    await w.addDocument(docs[0]!, null);
    await assert.rejects(w.addKeywordIndex(index(docs.slice(0, 2)), 0), /internal: a keyword index of blocks/, 'an index of blocks not written yet');
    await w.addDocument(docs[1]!, null);
    await assert.rejects(w.addKeywordIndex(index(docs.slice(1, 2)), docs[0]!.blocks.length), /internal: a keyword index of blocks/, 'an index that skips the batch before');
    await w.addKeywordIndex(index(docs.slice(0, 2)), 0);
    await assert.rejects(w.addDocument(docs[2]!, new Float32Array(DIMS)), /vector rows do not match/, 'rows for a keyword-only segment');
    await w.abort();
  });

  it('damaged files are store_corrupt naming the file; a newer document list is store_future_version', async () => {
    const root = tempDir();
    const docs = (await documents()).slice(0, 2);
    const blocks = docs.reduce((n, d) => n + d.blocks.length, 0);
    const folder = await writeSegment(root, docs, 1, rowsOf(docs));
    const text = path.join(folder, SEGMENT_FILES_2.text);
    const original = fs.readFileSync(text);
    fs.writeFileSync(text, original.subarray(0, original.length - 3));
    await assert.rejects(readSegmentDocuments2(folder, blocks, new Slicer()), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt' && e.message.includes('text.bin'));
    fs.writeFileSync(text, original);
    await assert.rejects(readSegmentDocuments2(folder, blocks + 1, new Slicer()), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt');
    const list = path.join(folder, SEGMENT_FILES_2.documents);
    const lines = fs.readFileSync(list, 'utf8');
    fs.writeFileSync(list, lines.replace('{"formatVersion":2}', '{"formatVersion":9}'));
    await assert.rejects(readSegmentDocuments2(folder, blocks, new Slicer()), (e: unknown) => e instanceof StoreError && e.code === 'store_future_version' && e.message.includes('documents.jsonl'));
    fs.writeFileSync(list, lines.replace('"title":', '"title":7,"x":'));
    await assert.rejects(readSegmentDocuments2(folder, blocks, new Slicer()), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt' && e.message.includes('documents.jsonl'));
    fs.writeFileSync(list, lines);
    const codes = path.join(folder, SEGMENT_FILES_2.codes);
    fs.appendFileSync(codes, 'x');
    await assert.rejects(readCodes(folder, blocks, DIMS, 0, blocks), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt' && e.message.includes('vectors.q8'));
    fs.rmSync(path.join(folder, SEGMENT_FILES_2.postings));
    await assert.rejects(readSegmentKeyword2(folder, blocks), (e: unknown) => e instanceof StoreError && e.code === 'store_corrupt' && e.message.includes('keyword.postings'));
  });

  it('the build spool gives back each document as put, in any order asked', async () => {
    const root = tempDir();
    const docs = await documents();
    const spool = await DocumentSpool.create(path.join(root, 'spool'));
    const records: SpooledDocument[] = [];
    for (const d of docs) records.push(await spool.put(d));
    await spool.flush();
    const order = [3, 0, 4, 1, 2].map((i) => ({ ...records[i]!, doc_id: `new${i}` }));
    const back = await readAll(spool, order);
    back.forEach((d, k) => assert.deepEqual(d, { ...docs[[3, 0, 4, 1, 2][k]!]!, doc_id: `new${[3, 0, 4, 1, 2][k]}` }));
    assert.deepEqual(
      records.map((r) => [r.blocks, r.tokens]),
      docs.map((d) => [d.blocks.length, d.blocks.reduce((n, b) => n + b.token_count, 0)]),
    );
    await spool.dispose();
    assert.equal(fs.existsSync(path.join(root, 'spool')), false);
  });

  it('spools a document serialised elsewhere as its bytes, hands the buffer back once written, and reads batch after batch through one buffer', async () => {
    const root = tempDir();
    const docs = await documents();
    const spool = await DocumentSpool.create(path.join(root, 'spool'));
    const released: number[] = [];
    const records: SpooledDocument[] = [];
    for (const [i, d] of docs.entries()) {
      const s = serializeDocument(d);
      records.push(await spool.putSerialized({ ...s, release: () => released.push(i) }));
    }
    assert.deepEqual(released, docs.map((_, i) => i));
    await spool.flush();
    assert.deepEqual(records.map((r) => r.length), docs.map((d) => Buffer.byteLength(`${JSON.stringify(d)}\n`)));
    // Largest batch first, then smaller ones: the shared read buffer never shows an earlier batch's bytes.
    for (const batch of [[0, 1, 2, 3, 4, 5, 6, 7], [6, 2], [1]]) {
      const back = await readAll(spool, batch.map((i) => records[i]!));
      back.forEach((d, k) => assert.deepEqual(d, docs[batch[k]!]));
    }
    // Read as a batch, each document is parsed when asked for, in any order, as often as asked.
    const order = [5, 0, 7, 2];
    const batch = await spool.readBatch(order.map((i) => ({ ...records[i]!, doc_id: `b${i}` })));
    assert.equal(batch.length, order.length);
    for (const k of [3, 0, 2, 1, 3]) assert.deepEqual(batch.parse(k), { ...docs[order[k]!]!, doc_id: `b${order[k]}` });
    assert.notEqual(batch.parse(0), batch.parse(0), 'a fresh document each time: nothing of the batch is kept as objects');
    await spool.dispose();
  });
});
