/**
 * Keyword-only retrieval over a small folder of learner notes (test/fixtures/notes), built and loaded
 * the way `docqa index` does it: the failures seen on a real Chinese study-notes repository.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { DataDir } from '../../src/common/data-dir';
import { EmbeddingConfig } from '../../src/index/embed/embedding-client';
import { hybridSearch } from '../../src/index/search/hybrid-search';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { KEYWORD_TOKENIZER_NAME } from '../../src/index/search/keyword-tokenizer';
import { FILES, type LoadedSnapshot, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { addSources } from '../../src/index/sources/sources';
import { fixture, tempDir } from '../helpers';

/** The top k blocks for a query as `file: section path`. */
function top(s: LoadedSnapshot, query: string, k: number): string[] {
  return hybridSearch(s.bm25, null, query, null, k).map((h) => {
    const [di, bi] = s.blockRefs[h.block]!;
    const d = s.documents[di]!;
    return `${path.basename(d.path)}: ${d.blocks[bi]!.section_path}`;
  });
}

const KEYWORD_ONLY = { ingest: DEFAULT_INGEST_OPTIONS, embedding: EmbeddingConfig.parse({ provider: 'none' }), embeddingApiKey: '' };

describe('keyword retrieval over learner notes', () => {
  let snapshot: LoadedSnapshot;
  before(async () => {
    const store = new DataDir(path.join(tempDir(), 'store'));
    await addSources(store, [fixture('notes')]);
    await buildSnapshot(store, KEYWORD_ONLY);
    snapshot = (await loadActiveSnapshot(store))!;
  });

  it('a mixed-language query is decided by its English word as much as by its Chinese ones', () => {
    // The Chinese half made 11 unigram+bigram tokens against one English token: the blocks that say
    // 关键字的作用 (the page's introduction, extends, implements) came before the volatile section.
    assert.equal(top(snapshot, 'volatile 关键字的作用', 1)[0], 'java-关键字.md: Java 关键字 > volatile');
  });

  it('a generated table of contents is no block: the section a query names comes first, not the list of all titles', () => {
    assert.equal(top(snapshot, 'TCP 三次握手', 1)[0], '计算机网络.md: 计算机网络笔记 > TCP 的三次握手');
    assert.equal(top(snapshot, '死锁的必要条件', 1)[0], '操作系统.md: 操作系统 > 死锁 > 死锁的必要条件');
    // Typora's list in the page's first section, doctoc's before the first heading: neither is a block.
    const blocks = snapshot.documents.flatMap((d) => d.blocks);
    assert.ok(!blocks.some((b) => /\]\(#/.test(b.text) && !b.text.includes('://')), 'no block is made of anchor links');
    // A list of external links is content.
    assert.equal(top(snapshot, 'RFC 793', 1)[0], '计算机网络.md: 计算机网络笔记 > 参考资料');
  });
  it('a block’s headings count: the section titled by the query outranks a paragraph that mentions its words', () => {
    // The TCP/UDP paragraph names 拥塞控制 twice and TCP twice; the congestion-control section's text
    // says neither, its heading does.
    assert.equal(top(snapshot, 'TCP 拥塞控制', 1)[0], '计算机网络.md: 计算机网络笔记 > TCP 拥塞控制');
  });
  it('re-indexes a snapshot of an older keyword tokenizer from its parse results, and then answers as a fresh build', async () => {
    const store = new DataDir(path.join(tempDir(), 'store'));
    await addSources(store, [fixture('notes')]);
    const first = (await buildSnapshot(store, KEYWORD_ONLY)).manifest;
    const file = path.join(store.snapshotDir(first.id), FILES.manifest);
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), keyword_tokenizer: 'docqa-keyword@1 (nfkc-lower words + cjk uni+bigrams)' }));
    const second = (await buildSnapshot(store, KEYWORD_ONLY)).manifest;
    assert.equal(second.keyword_tokenizer, KEYWORD_TOKENIZER_NAME);
    assert.ok(!second.segments.some((sg) => first.segments.some((f) => f.id === sg.id)), 'no segment of the old index is kept');
    assert.equal(second.stats.reused_documents, second.documents.length, 'no file parsed again');
    const again = (await loadActiveSnapshot(store))!;
    for (const q of ['volatile 关键字的作用', 'TCP 三次握手', 'TCP 拥塞控制']) assert.deepEqual(top(again, q, 5), top(snapshot, q, 5), q);
  });
});
