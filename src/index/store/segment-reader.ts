import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StoreError, errorMessage } from '../../common/errors';
import { readFullySync } from '../../common/read-file';
import type { Slicer } from '../../common/slicer';
import type { Block, Document } from '../../shared/document';
import type { KeywordData, PostingList } from '../search/bm25-index';
import { type Int8Scorer, allocateInt8 } from '../search/dot-kernel';
import type { ExactRows } from '../search/quantized-vectors';
import { PackedTerms } from '../search/term-table';
import { readPack } from './binary-pack';
import { type BlockTable, SegmentTexts, readBlockTable, sectionNames, storedBlock, textPieces } from './block-table';
import { outlineFromFile, sectionsSpan } from './document-outlines';
import { SEGMENT_FILES_2 } from './segment-format';
import { type PostingsCache, ownPostingList } from './postings-cache';
import { SEGMENT_FORMAT_VERSION_2, StoredDocument } from './snapshot-manifest';

/** Largest single read; reads in flight at once; bytes of document lines parsed at once (one JSON.parse, a few ms). */
const READ_PIECE = 16 * 1024 * 1024;
const LINES_PIECE = 256 * 1024;
const READS_IN_FLIGHT = 2;

const corrupt = (file: string, what: string, cause?: unknown) => new StoreError('store_corrupt', `${file}: ${what}; rebuild the index (docqa index)`, cause ? { cause } : undefined);

async function openForRead(file: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(file, 'r');
  } catch (err) {
    throw new StoreError('store_corrupt', `${file} unreadable: ${errorMessage(err)}`, { cause: err });
  }
}

/** Fills `target` from `position` of an open file: 16 MB reads, several in flight. */
export async function readInto(h: fs.FileHandle, file: string, target: Uint8Array, position: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let at = next; at < target.byteLength; at = next) {
      next += READ_PIECE;
      const piece = target.subarray(at, Math.min(target.byteLength, at + READ_PIECE));
      for (let done = 0; done < piece.byteLength; ) {
        const { bytesRead } = await h.read(piece, done, piece.byteLength - done, position + at + done);
        if (bytesRead === 0) throw corrupt(file, 'ends early');
        done += bytesRead;
      }
    }
  };
  await Promise.all(Array.from({ length: READS_IN_FLIGHT }, worker));
}

/**
 * The stored documents of documents.jsonl, read and parsed a piece at a time (whole lines per piece),
 * each document's outline left in the file until it is first read (document-outlines.ts).
 */
export async function readStoredDocuments(folder: string, slicer: Slicer): Promise<StoredDocument[]> {
  const file = path.join(folder, SEGMENT_FILES_2.documents);
  const h = await openForRead(file);
  const out: StoredDocument[] = [];
  try {
    const size = (await h.stat()).size;
    let carry = Buffer.alloc(0);
    let first = true;
    for (let pos = 0; pos < size || carry.length > 0; ) {
      const piece = Buffer.allocUnsafe(Math.min(LINES_PIECE, size - pos));
      if (piece.length > 0) await readInto(h, file, piece, pos);
      pos += piece.length;
      const bytes = carry.length ? Buffer.concat([carry, piece]) : piece;
      const end = pos >= size ? bytes.length : bytes.lastIndexOf(10) + 1;
      if (end === 0 && pos < size) {
        carry = bytes;
        continue;
      }
      carry = bytes.subarray(end);
      // Each line without its outline (an empty list in its place), and where the outline is in the file.
      const base = pos - bytes.length;
      const heads: string[] = [];
      const outlines: Array<[number, number, number] | null> = [];
      for (let from = 0; from < end; ) {
        let to = bytes.indexOf(10, from);
        if (to < 0 || to > end) to = end;
        if (to > from && first) {
          checkHeader(file, bytes.toString('utf8', from, to));
          first = false;
        } else if (to > from) {
          const span = sectionsSpan(bytes, from, to);
          heads.push(span ? `${bytes.toString('utf8', from, span[0])}[]${bytes.toString('utf8', span[1], to)}` : bytes.toString('utf8', from, to));
          outlines.push(span && [base + span[0], span[1] - span[0], span[2]]);
        }
        from = to + 1;
      }
      let parsed: unknown[];
      try {
        parsed = JSON.parse(`[${heads.join(',')}]`) as unknown[];
      } catch (err) {
        throw corrupt(file, 'a line is damaged', err);
      }
      for (const [i, p] of parsed.entries()) {
        const r = StoredDocument.safeParse(p);
        if (!r.success) throw corrupt(file, `a document does not match its schema (${r.error.issues[0]?.path.join('.') ?? ''})`);
        const at = outlines[i];
        if (at) outlineFromFile(r.data, file, at[0], at[1], at[2]);
        out.push(r.data);
        await slicer.tick();
      }
      await slicer.tick();
      if (pos >= size) break;
    }
    if (first) throw corrupt(file, 'it is empty');
  } finally {
    await h.close();
  }
  return out;
}

/** documents.jsonl's first line: `{"formatVersion":2}`. */
function checkHeader(file: string, line: string): void {
  let version: unknown;
  try {
    version = (JSON.parse(line) as { formatVersion?: unknown } | null)?.formatVersion;
  } catch {
    throw corrupt(file, 'its first line is damaged');
  }
  if (typeof version === 'number' && version > SEGMENT_FORMAT_VERSION_2) throw new StoreError('store_future_version', `${file} has formatVersion ${version}; upgrade DocQA`);
  if (version !== SEGMENT_FORMAT_VERSION_2) throw corrupt(file, 'it is not a format-2 document list');
}

/** blocks.pack's columns, checked against `blocks` and text.bin's size. */
export async function readBlocks(folder: string, blocks: number, slicer: Slicer): Promise<BlockTable> {
  const file = path.join(folder, SEGMENT_FILES_2.blocks);
  const pack = await readPack(file);
  await slicer.tick();
  let textBytes: number;
  try {
    textBytes = fsSync.statSync(path.join(folder, SEGMENT_FILES_2.text)).size;
  } catch (err) {
    throw new StoreError('store_corrupt', `${path.join(folder, SEGMENT_FILES_2.text)} is missing`, { cause: err });
  }
  return readBlockTable(pack.arrays, file, blocks, textBytes, () => slicer.tick());
}

/** text.bin, in pieces of whole blocks. */
export async function readTexts(folder: string, table: BlockTable): Promise<SegmentTexts> {
  const file = path.join(folder, SEGMENT_FILES_2.text);
  const pieces = textPieces(table.textEnds);
  const h = await openForRead(file);
  try {
    const buffers: Buffer[] = [];
    for (const [, start, end] of pieces) {
      const b = Buffer.allocUnsafeSlow(end - start);
      await readInto(h, file, b, start);
      buffers.push(b);
    }
    return new SegmentTexts(buffers, Uint32Array.from(pieces, (p) => p[0]), Float64Array.from(pieces, (p) => p[1]), table.textEnds);
  } finally {
    await h.close();
  }
}

/**
 * A document whose blocks are made on first access, then kept as a plain property: loading a million
 * blocks builds none of their objects (a third of a 100k load's time, and most of its collector pauses);
 * a search shows a few, a tool that walks them all (scan_term) makes them once. Enumerable like any
 * property, so serialising or spreading the document gives its blocks.
 */
function withLazyBlocks(stored: StoredDocument, make: () => Block[]): Document {
  // The stored document itself becomes the document (its block count replaced by the getter): a copy
  // would read the outline it leaves in the file, or cost a descriptor copy per document.
  const doc = stored as unknown as Document;
  Object.defineProperty(doc, 'blocks', {
    enumerable: true,
    configurable: true,
    get() {
      const blocks = make();
      Object.defineProperty(doc, 'blocks', { value: blocks, enumerable: true, configurable: true, writable: true });
      return blocks;
    },
  });
  return doc;
}

/** A format-2 segment's documents, and how many blocks each has (counted without making them). */
export interface SegmentDocuments {
  documents: Document[];
  blockCounts: number[];
}

/** The documents of a format-2 segment, their blocks (made when first read) reading their texts from the segment's bytes. */
export async function readSegmentDocuments2(folder: string, blocks: number, slicer: Slicer): Promise<SegmentDocuments> {
  const stored = await readStoredDocuments(folder, slicer);
  await slicer.tick();
  const table = await readBlocks(folder, blocks, slicer);
  await slicer.tick();
  const counted = stored.reduce((n, d) => n + d.blocks, 0);
  if (counted !== blocks) throw corrupt(path.join(folder, SEGMENT_FILES_2.documents), `its documents have ${counted} blocks, blocks.pack ${blocks}`);
  const texts = await readTexts(folder, table);
  await slicer.tick();
  const names = sectionNames(table);
  const documents: Document[] = [];
  let at = 0;
  const blockCounts = stored.map((d) => d.blocks);
  for (const [i, s] of stored.entries()) {
    const first = at;
    const count = blockCounts[i]!;
    documents.push(withLazyBlocks(s, () => Array.from({ length: count }, (_, b) => storedBlock(table, first + b, names, texts))));
    at += count;
  }
  return { documents, blockCounts };
}

/** A format-2 segment's keyword index: terms and lengths in memory, each term's postings read from keyword.postings when a query needs them. */
class DiskPostings implements KeywordData {
  constructor(
    readonly terms: PackedTerms,
    readonly docLengths: Uint32Array,
    readonly headLengths: Uint32Array,
    private readonly offsets: Float64Array,
    private readonly file: string,
    private readonly cache: PostingsCache | null,
  ) {}

  count(id: number): number {
    return this.offsets[id + 1]! - this.offsets[id]!;
  }

  begin(): void {
    this.cache?.begin();
  }

  postings(id: number): PostingList {
    const n = this.count(id);
    const fill = (bytes: Uint8Array) => {
      let fd: number;
      try {
        fd = fsSync.openSync(this.file, 'r');
      } catch (err) {
        throw new StoreError('store_corrupt', `${this.file} unreadable: ${errorMessage(err)}`, { cause: err });
      }
      try {
        if (!readFullySync(fd, bytes, 8 * this.offsets[id]!)) throw corrupt(this.file, 'ends early');
      } finally {
        fsSync.closeSync(fd);
      }
    };
    if (!this.cache) return ownPostingList(n, fill);
    const key = `${this.file}#${id}`;
    return this.cache.get(key) ?? this.cache.read(key, n, fill);
  }
}

/** `cache`: where a loaded snapshot keeps the large lists its queries read (shared by its segments). */
export async function readSegmentKeyword2(folder: string, blocks: number, cache: PostingsCache | null = null): Promise<KeywordData> {
  const file = path.join(folder, SEGMENT_FILES_2.keyword);
  const postingsFile = path.join(folder, SEGMENT_FILES_2.postings);
  const pack = await readPack(file);
  const a = pack.arrays;
  if (!(a.termChars instanceof Uint16Array) || !(a.termStarts instanceof Uint32Array) || !(a.offsets instanceof Float64Array)) throw corrupt(file, 'its term table is missing');
  if (!(a.docLengths instanceof Uint32Array) || a.docLengths.length !== blocks || !(a.headLengths instanceof Uint32Array) || a.headLengths.length !== blocks) throw corrupt(file, 'its field lengths are missing');
  let terms: PackedTerms;
  try {
    terms = new PackedTerms(a.termChars, a.termStarts);
  } catch (err) {
    throw corrupt(file, errorMessage(err));
  }
  const offsets = a.offsets;
  if (offsets.length !== terms.length + 1 || offsets[0] !== 0) throw corrupt(file, 'its postings offsets do not match its terms');
  for (let i = 0; i < terms.length; i++) if (!(offsets[i]! <= offsets[i + 1]!)) throw corrupt(file, 'its postings offsets are out of order');
  let size: number;
  try {
    size = fsSync.statSync(postingsFile).size;
  } catch (err) {
    throw new StoreError('store_corrupt', `${postingsFile} is missing`, { cause: err });
  }
  if (size !== 8 * offsets[terms.length]!) throw corrupt(postingsFile, `it has ${size} bytes, keyword.pack expects ${8 * offsets[terms.length]!}`);
  return new DiskPostings(terms, a.docLengths, a.headLengths, offsets, postingsFile, cache);
}

/** Exact float32 rows read from a segment's vectors.f32 on demand (rows of a shard starting at `firstRow`). */
export class FileRows implements ExactRows {
  private readonly row: Float32Array;
  private readonly bytes: Uint8Array;

  constructor(
    private readonly file: string,
    private readonly dims: number,
    private readonly fileRows: number,
    private readonly firstRow: number,
  ) {
    this.row = new Float32Array(dims);
    this.bytes = new Uint8Array(this.row.buffer);
  }

  read(rows: readonly number[], use: (row: number, values: Float32Array) => void): void {
    let fd: number;
    try {
      fd = fsSync.openSync(this.file, 'r');
    } catch (err) {
      throw new StoreError('store_corrupt', `${this.file} unreadable (the snapshot's exact vectors): ${errorMessage(err)}`, { cause: err });
    }
    try {
      const { size } = fsSync.fstatSync(fd);
      if (size !== this.fileRows * this.dims * 4) throw corrupt(this.file, `it has ${size} bytes, expected ${this.fileRows * this.dims * 4}`);
      for (const r of rows) {
        if (!readFullySync(fd, this.bytes, (this.firstRow + r) * this.dims * 4)) throw corrupt(this.file, 'ends early');
        use(r, this.row);
      }
    } finally {
      fsSync.closeSync(fd);
    }
  }
}

/** vectors.q8 rows [first, first + rows) into a new int8 scorer (codes and scales). */
export async function readCodes(folder: string, fileRows: number, dims: number, first: number, rows: number): Promise<Int8Scorer> {
  const file = path.join(folder, SEGMENT_FILES_2.codes);
  const h = await openForRead(file);
  try {
    const { size } = await h.stat();
    if (size !== fileRows * (dims + 4)) throw corrupt(file, `it has ${size} bytes, expected ${fileRows * (dims + 4)}`);
    const scorer = allocateInt8(rows, dims);
    await readInto(h, file, new Uint8Array(scorer.codes.buffer, scorer.codes.byteOffset, rows * dims), first * dims);
    await readInto(h, file, new Uint8Array(scorer.scales.buffer, scorer.scales.byteOffset, rows * 4), fileRows * dims + first * 4);
    return scorer;
  } finally {
    await h.close();
  }
}

