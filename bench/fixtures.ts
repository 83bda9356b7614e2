import fs from 'node:fs';
import path from 'node:path';
import { buildBm25, keywordFields } from '../src/index/search/bm25-build';
import type { DataDir } from '../src/common/data-dir';
import { writeVersioned } from '../src/common/json-file';
import { DEFAULT_INGEST_OPTIONS } from '../src/index/model';
import { type Document } from '../src/shared/document';
import { SNAPSHOT_FORMAT_VERSION, type SnapshotManifest } from '../src/index/store/snapshot-manifest';
import { FILES } from '../src/index/store/snapshot-store';
import { segmentDir } from '../src/index/store/segment-store';
import { SegmentWriter } from '../src/index/store/segment-writer';
import { BATCH_BLOCKS } from '../src/index/store/build/segment-phase';
import { StagedFolder } from '../src/index/store/staged-folder';
import { PARSE_VERSION } from '../src/index/blocks/parse-version';

const QA = path.join(__dirname, '..', '..', 'shared', 'corpus', 'qa');

/** Paragraphs and one question per paragraph from SQuAD and CMRC 2018 (empty when the corpus is absent). */
export function qaParagraphs(): { paragraphs: string[]; questions: string[] } {
  const paragraphs: string[] = [];
  const questions: string[] = [];
  for (const f of ['squad-dev-v1.1.json', 'cmrc2018-dev.json']) {
    const file = path.join(QA, f);
    if (!fs.existsSync(file)) continue;
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { data: Array<{ paragraphs: Array<{ context: string; qas: Array<{ question: string }> }> }> };
    for (const a of data.data)
      for (const p of a.paragraphs) {
        paragraphs.push(p.context);
        if (p.qas[0]) questions.push(p.qas[0].question);
      }
  }
  return { paragraphs, questions };
}

/** A deterministic pseudo-random source in [-0.5, 0.5). */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

const BLOCKS_PER_DOC = 10;

/**
 * n blocks as documents of 10 blocks each (one section), block i the text of paragraph i (cycling) with
 * its number appended, so no two blocks are the same; and their total text bytes.
 */
export function benchDocuments(n: number, paragraphs: readonly string[]): { documents: Document[]; textBytes: number } {
  const documents: Document[] = [];
  let textBytes = 0;
  for (let d = 0; d < n / BLOCKS_PER_DOC; d++) {
    const blocks = Array.from({ length: BLOCKS_PER_DOC }, (_, b) => {
      const text = `${paragraphs[(d * BLOCKS_PER_DOC + b) % paragraphs.length]} (#${d}.${b})`;
      textBytes += Buffer.byteLength(text);
      return { block_id: `b${d}x${b}`, block_index: b, section_path: 'Body', text, token_count: 100, location: { kind: 'page' as const, page: 1 } };
    });
    documents.push({
      doc_id: `d${String(d).padStart(8, '0')}`, path: `/bench/${d}.pdf`, title: `Doc ${d}`, source_label: 'bench', aliases: [], lang: 'en', format: 'pdf',
      content_hash: String(d), byte_size: 1, encoding: null, page_count: 1,
      sections: [{ path: 'Body', title: 'Body', ordinal: 1, depth: 1, parent_path: null, direct_blocks: BLOCKS_PER_DOC, subtree_blocks: BLOCKS_PER_DOC, direct_tokens: 1000, subtree_tokens: 1000, first_sentence: '', location: null }],
      blocks,
    });
  }
  return { documents, textBytes };
}

/** One format-2 segment of `docs` with their rows (normalised), written batch by batch as a build writes it. */
export async function writeBenchSegment(staged: StagedFolder, folder: string, docs: Document[], matrix: Float32Array, dims: number): Promise<void> {
  const blocks = docs.reduce((n, d) => n + d.blocks.length, 0);
  const writer = await SegmentWriter.create(staged, folder, `${folder}.scratch`, blocks, dims);
  let row = 0;
  for (let first = 0; first < docs.length; ) {
    let end = first;
    let n = 0;
    while (end < docs.length && (n === 0 || n + docs[end]!.blocks.length <= BATCH_BLOCKS)) n += docs[end++]!.blocks.length;
    const batch = docs.slice(first, end);
    const { texts, headings } = keywordFields(batch);
    await writer.add(batch, matrix.subarray(row * dims, (row + n) * dims), buildBm25(texts, headings));
    row += n;
    first = end;
  }
  await writer.finish();
}

/**
 * Writes a ready snapshot made directly from documents and a (normalised) vector matrix; returns the
 * build time of its index files. `shares` splits the documents over that many segments (document d goes
 * by a hash of d, as edits scatter them), the way incremental builds leave a collection.
 */
export async function writeBenchSnapshot(dir: DataDir, id: string, documents: Document[], matrix: Float32Array, dims: number, shares: number[] = [1]): Promise<number> {
  const folder = dir.snapshotDir(id);
  const staged = new StagedFolder(folder);
  const t = performance.now();
  const rowOf = new Map<Document, number>();
  let row = 0;
  for (const d of documents) {
    rowOf.set(d, row);
    row += d.blocks.length;
  }
  const bounds = shares.map((_, i) => shares.slice(0, i + 1).reduce((a, b) => a + b, 0));
  const segmentOf = (i: number) => bounds.findIndex((b) => ((i * 7919) % 10_007) / 10_007 < b);
  const segments: SnapshotManifest['segments'] = [];
  const placed = new Map<Document, string>();
  for (const [k] of shares.entries()) {
    const docs = documents.filter((_, i) => segmentOf(i) === k);
    const id = `gbench-${k}`;
    const blocks = docs.reduce((n, d) => n + d.blocks.length, 0);
    const m = new Float32Array(blocks * dims);
    let at = 0;
    for (const d of docs) {
      m.set(matrix.subarray(rowOf.get(d)! * dims, (rowOf.get(d)! + d.blocks.length) * dims), at * dims);
      at += d.blocks.length;
      placed.set(d, id);
    }
    await writeBenchSegment(staged, segmentDir(folder, id), docs, m, dims);
    segments.push({ id, format: 2, documents: docs.length, blocks });
  }
  const ms = performance.now() - t;
  const manifest: SnapshotManifest = {
    formatVersion: SNAPSHOT_FORMAT_VERSION, id, parent: null, state: 'ready', created_at: new Date().toISOString(), finished_at: null, app_version: 'bench',
    sources: [], failed_documents: [],
    skipped: [], segments,
    documents: documents.map((d) => ({ doc_id: d.doc_id, path: d.path, title: d.title, content_hash: d.content_hash, byte_size: d.byte_size, mtime_ms: 0, source_label: d.source_label, aliases: d.aliases, blocks: d.blocks.length, tokens: d.blocks.reduce((n, b) => n + b.token_count, 0), reused: false, segment: placed.get(d)! })), chunking: DEFAULT_INGEST_OPTIONS.chunking, parse_version: PARSE_VERSION, reparse_reason: null, tokenizer: 'bench', keyword_tokenizer: 'bench',
    embedding: { provider: 'openai-compatible', family: 'bench', model: 'random', dimensions: dims }, fusion: { method: 'rrf', k: 60, depth: 50 },
    stats: { documents: documents.length, blocks: 0, failed_documents: 0, reused_documents: 0, embedded_blocks: 0, cached_embeddings: 0, embedding_tokens: 0, embedding_requests: 0, durations_ms: { ingest: 0, embed: 0, index: 0, write: 0 } },
    error: null,
  };
  await writeVersioned(path.join(folder, FILES.manifest), manifest);
  await staged.sync();
  return ms;
}
