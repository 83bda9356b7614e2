import fs from 'node:fs/promises';
import path from 'node:path';
import { StoreError, errorMessage } from '../../common/errors';
import { FileAppender } from '../../common/file-appender';
import type { Document } from '../../shared/document';
import type { Bm25Data } from '../search/bm25-build';
import { quantizeRows } from '../search/quantize';
import { encodePack } from './binary-pack';
import { BlockTableBuilder } from './block-table';
import { MERGE_FANIN, mergeRuns, mergeToRun, writeRun } from './keyword-runs';
import { SEGMENT_FILES_2 } from './segment-format';
import { SEGMENT_FORMAT_VERSION_2, type StoredDocument } from './snapshot-manifest';
import type { StagedFolder } from './staged-folder';

/** A document's line in documents.jsonl: everything but its blocks, which are counted. */
export function storedDocument(d: Document): StoredDocument {
  const { blocks, ...rest } = d;
  return { ...rest, blocks: blocks.length };
}

/**
 * A format-2 segment's keyword files from its batches' indexes (run files, or one index in memory):
 * keyword.postings merged term by term, then keyword.pack with the terms, offsets and field lengths.
 */
export async function writeKeywordFiles(staged: StagedFolder, folder: string, runs: ReadonlyArray<string | Bm25Data>, docLengths: Uint32Array, headLengths: Uint32Array): Promise<void> {
  const postings = await staged.append(path.join(folder, SEGMENT_FILES_2.postings));
  let merged;
  try {
    merged = await mergeRuns(runs, postings);
  } finally {
    await postings.close();
  }
  const { termChars, termStarts, offsets } = merged;
  await staged.write(path.join(folder, SEGMENT_FILES_2.keyword), encodePack({ postings: offsets[offsets.length - 1] }, { termChars, termStarts, offsets, docLengths, headLengths }));
}

/**
 * Writes one format-2 segment front to back, a batch of documents at a time (doc_id order across
 * batches): documents.jsonl, text.bin, vectors.f32 and vectors.q8 are appended as each batch arrives, the
 * batch's keyword index is kept (one batch) or spilled to a run file (several), and the small per-block
 * columns (about 50 bytes a block) stay in memory until `finish` writes them with the keyword index
 * merged from the runs. So writing a segment of any size holds one batch and those columns, never the
 * segment (a single JSON string of a million blocks' documents was past V8's string limit).
 */
export class SegmentWriter {
  private blocks = 0;
  /** Blocks whose keyword index is in (addKeywordIndex). */
  private indexed = 0;
  private documents = 0;
  private readonly table: BlockTableBuilder;
  private readonly docLengths: Uint32Array;
  private readonly headLengths: Uint32Array;
  private readonly scales: Float32Array | null;
  /** The first batch's index while it is the only one; then every batch's, in run files by merge level. */
  private first: { data: Bm25Data; base: number } | null = null;
  private readonly levels: Array<Array<{ file: string; base: number }>> = [];
  private spilled = 0;
  private batches = 0;
  /** Codes of up to 1,024 rows, reused from document to document. */
  private codes = new Int8Array(0);
  private readonly open: FileAppender[] = [];

  private constructor(
    private readonly staged: StagedFolder,
    readonly folder: string,
    private readonly scratch: string,
    private readonly dims: number | null,
    capacity: number,
    private readonly docsOut: FileAppender,
    private readonly textOut: FileAppender,
    private readonly vectorsOut: FileAppender | null,
    private readonly codesOut: FileAppender | null,
  ) {
    this.open = [docsOut, textOut, ...(vectorsOut ? [vectorsOut] : []), ...(codesOut ? [codesOut] : [])];
    this.table = new BlockTableBuilder(capacity);
    this.docLengths = new Uint32Array(capacity);
    this.headLengths = new Uint32Array(capacity);
    this.scales = dims === null ? null : new Float32Array(capacity);
  }

  /**
   * A writer for a segment of at most `capacity` blocks in `folder` (inside the staged snapshot), with
   * vectors of `dims` (null: keyword-only); `scratch` is a folder for its run files, removed by finish.
   */
  static async create(staged: StagedFolder, folder: string, scratch: string, capacity: number, dims: number | null): Promise<SegmentWriter> {
    staged.mkdir(folder);
    const files: FileAppender[] = [];
    try {
      for (const name of [SEGMENT_FILES_2.documents, SEGMENT_FILES_2.text, ...(dims === null ? [] : [SEGMENT_FILES_2.vectors, SEGMENT_FILES_2.codes])]) files.push(await staged.append(path.join(folder, name)));
    } catch (err) {
      for (const f of files) await f.close().catch(() => undefined);
      throw new StoreError('store_io', `cannot write segment files in ${folder}: ${errorMessage(err)}`, { cause: err });
    }
    const [docs, text, vectors, codes] = files;
    const w = new SegmentWriter(staged, folder, scratch, dims, capacity, docs!, text!, vectors ?? null, codes ?? null);
    await w.io(async () => docs!.appendText(`${JSON.stringify({ formatVersion: SEGMENT_FORMAT_VERSION_2 })}\n`));
    return w;
  }

  private async io<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      throw new StoreError('store_io', `cannot write segment ${this.folder}: ${errorMessage(err)}`, { cause: err });
    }
  }

  /**
   * Appends a batch: its documents (doc_id order, after every earlier batch's), their vector rows
   * (normalised, blocks × dims, in the same order; null when keyword-only) and their keyword index
   * (block numbers local to the batch).
   */
  async add(docs: readonly Document[], rows: Float32Array | null, bm25: Bm25Data, tick: () => Promise<void> = async () => undefined): Promise<void> {
    const n = docs.reduce((k, d) => k + d.blocks.length, 0);
    if (bm25.docLengths.length !== n) throw new Error(`internal: a keyword index of ${bm25.docLengths.length} blocks for a batch of ${n}`);
    const dims = this.dims;
    if ((dims === null) !== (rows === null) || (dims !== null && rows!.length !== n * dims)) throw new Error('internal: vector rows do not match the batch');
    const base = this.blocks;
    let row = 0;
    for (const d of docs) {
      const m = d.blocks.length;
      await this.addDocument(d, rows && rows.subarray(row * dims!, (row + m) * dims!), tick);
      row += m;
    }
    await this.addKeywordIndex(bm25, base);
  }

  /**
   * Appends one document (doc_id order, after every earlier one) and its vector rows (normalised,
   * blocks × dims; null when keyword-only). Its keyword index comes with its batch's (addKeywordIndex).
   */
  async addDocument(d: Document, rows: Float32Array | null, tick: () => Promise<void> = async () => undefined): Promise<void> {
    const n = d.blocks.length;
    const dims = this.dims;
    if ((dims === null) !== (rows === null) || (dims !== null && rows!.length !== n * dims)) throw new Error('internal: vector rows do not match the document');
    const base = this.blocks;
    await this.io(async () => {
      await this.docsOut.appendText(`${JSON.stringify(storedDocument(d))}\n`);
      for (const b of d.blocks) {
        const w = this.textOut.appendText(b.text);
        if (w) await w;
        this.table.add(b, this.textOut.length);
      }
      if (dims !== null && rows && n > 0) {
        await this.vectorsOut!.append(new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength));
        if (this.codes.length < Math.min(n, 1024) * dims) this.codes = new Int8Array(Math.min(n, 1024) * dims);
        // A thousand rows at a time (a few ms each at 1,024 dimensions), the loop given back between.
        for (let r = 0; r < n; r += 1024) {
          const m = Math.min(1024, n - r);
          const codes = this.codes.subarray(0, m * dims);
          quantizeRows(rows.subarray(r * dims, (r + m) * dims), dims, codes, this.scales!.subarray(base + r, base + r + m));
          await this.codesOut!.append(new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength));
          await tick();
        }
      }
      this.blocks += n;
      this.documents++;
      await tick();
    });
  }

  /**
   * A batch's keyword index (block numbers local to it), for the blocks from `base` on: the batches'
   * indexes come in block order, each covering the documents added since the one before. Returns the
   * indexes this writer has finished with (written to run files): their arrays may be used again.
   */
  async addKeywordIndex(bm25: Bm25Data, base: number): Promise<Bm25Data[]> {
    const n = bm25.docLengths.length;
    if (base !== this.indexed || base + n > this.blocks) throw new Error(`internal: a keyword index of blocks ${base}–${base + n} after ${this.indexed} of ${this.blocks} written`);
    return this.io(async () => {
      this.docLengths.set(bm25.docLengths, base);
      this.headLengths.set(bm25.headLengths, base);
      this.indexed += n;
      // One batch's index waits in memory; from the second on, every batch goes to a run file.
      if (this.batches++ === 0) {
        this.first = { data: bm25, base };
        return [];
      }
      const done: Bm25Data[] = [];
      if (this.first) {
        await this.spill(this.first.data, this.first.base);
        done.push(this.first.data);
      }
      this.first = null;
      await this.spill(bm25, base);
      done.push(bm25);
      return done;
    });
  }

  private async newRun(): Promise<{ file: string; out: FileAppender }> {
    await fs.mkdir(this.scratch, { recursive: true });
    const file = path.join(this.scratch, `run-${String(this.spilled++).padStart(6, '0')}`);
    return { file, out: await FileAppender.create(file) };
  }

  /**
   * A batch's index to a run file (block numbers made segment-wide); MERGE_FANIN runs of one level are
   * merged into one of the next, so the final merge never opens more than a few dozen.
   */
  private async spill(data: Bm25Data, base: number): Promise<void> {
    const run = await this.newRun();
    try {
      await writeRun(run.out, data, base);
    } finally {
      await run.out.close();
    }
    (this.levels[0] ??= []).push({ file: run.file, base });
    for (let level = 0; (this.levels[level]?.length ?? 0) >= MERGE_FANIN; level++) {
      const group = this.levels[level]!.splice(0);
      const merged = await this.newRun();
      try {
        await mergeToRun(
          group.map((g) => g.file),
          merged.out,
        );
      } finally {
        await merged.out.close();
      }
      for (const g of group) await fs.rm(g.file);
      (this.levels[level + 1] ??= []).push({ file: merged.file, base: group[0]!.base });
    }
  }

  /** The runs in block order (each level's runs cover contiguous ranges of blocks). */
  private get runs(): Array<string | Bm25Data> {
    if (this.first) return [this.first.data];
    return this.levels
      .flat()
      .sort((a, b) => a.base - b.base)
      .map((r) => r.file);
  }

  /** Blocks written so far. */
  get written(): number {
    return this.blocks;
  }

  /** Writes the block table and the keyword index, closes every file and removes the run files. */
  async finish(): Promise<{ documents: number; blocks: number }> {
    if (this.indexed !== this.blocks) throw new Error(`internal: ${this.blocks - this.indexed} blocks written without their keyword index`);
    await this.io(async () => {
      if (this.codesOut && this.scales) await this.codesOut.append(new Uint8Array(this.scales.buffer, 0, this.blocks * 4));
      for (const f of this.open.splice(0)) await f.close();
      await this.staged.write(path.join(this.folder, SEGMENT_FILES_2.blocks), encodePack({ blocks: this.blocks }, this.table.arrays()));
      await writeKeywordFiles(this.staged, this.folder, this.runs, this.docLengths.subarray(0, this.blocks), this.headLengths.subarray(0, this.blocks));
      await fs.rm(this.scratch, { recursive: true, force: true });
    });
    return { documents: this.documents, blocks: this.blocks };
  }

  /** Closes what is open (the files stay for the staged folder's removal). */
  async abort(): Promise<void> {
    for (const f of this.open.splice(0)) await f.close().catch(() => undefined);
    await fs.rm(this.scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}
