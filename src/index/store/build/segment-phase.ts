import path from 'node:path';
import { Slicer } from '../../../common/slicer';
import type { ReusedFile } from '../../ingest/ingest-sources';
import type { Document } from '../../../shared/document';
import { headOf } from '../../ingest/serialized-document';
import { embeddingKey } from '../../embed/embedding-cache';
import { type Bm25Data, keywordFields } from '../../search/bm25-build';
import { type Bm25Job, Bm25OffThread } from '../../search/bm25-off-thread';
import { normalizeRows } from '../../search/vector-index';
import { SegmentWriter } from '../segment-writer';
import type { ManifestDocument } from '../snapshot-manifest';
import type { StagedFolder } from '../staged-folder';
import type { DocumentSpool, SpooledDocument } from './document-spool';
import type { EmbedSession, EmbedTotals } from './embed-phase';
import type { Carried, CarrySource } from './reuse-phase';
import { type WrittenDocument, byDocId } from './write-phase';

/**
 * Blocks per batch of the new segment: what a build holds at once (the bytes of their documents, their
 * keyword index in the worker, the keyword index of the batch before) while writing a segment of any
 * size. Each batch costs a run file and one more run to merge. Measured on a 100k-block build (peak
 * resident memory, wall time, interleaved runs): 4,096 blocks 300–324 MB, 30 s; 3,072 300–311 MB,
 * 32 s (but 318 and 322 MB in two of three `bench scale` runs); 2,048 284–305 MB, 36 s. Issue 37's
 * limit is 1.5× the loaded index, 322 MB: 2,048 keeps the peak well inside it, for about 15 % more time.
 */
export const BATCH_BLOCKS = 2048;

/**
 * Blocks looked up in the embedding cache at once, within a batch: their cached rows are what the build
 * holds of vectors (4 MB at 1,024 dimensions; a whole batch's were 16.8 MB).
 */
const LOOKUP_BLOCKS = 1024;

/** A document of the new segment: parsed in this build (spooled), or carried over from the parent. */
type Item = { doc_id: string; blocks: number } & ({ fresh: SpooledDocument } | { carried: ReusedFile<ManifestDocument> });

export interface SegmentPhaseInput {
  staged: StagedFolder;
  /** The new segment's folder, and a scratch folder for its keyword runs. */
  folder: string;
  scratch: string;
  fresh: readonly SpooledDocument[];
  spool: DocumentSpool;
  rewrite: ReadonlyArray<ReusedFile<ManifestDocument>>;
  carry: CarrySource;
  /** The parent's dimensions when its rows can be carried as they are; null otherwise. */
  carriedDims: number | null;
  /** null: keyword-only. */
  embed: EmbedSession | null;
  /** Blocks per batch (default BATCH_BLOCKS). */
  batchBlocks?: number;
  signal?: AbortSignal;
  /** Before each batch (`done` of `total` written). */
  onBatch?: (done: number, total: number) => void;
  /** Once every batch is written, before the segment's keyword index is merged and its files closed. */
  onFinishing?: () => void;
}

export interface SegmentPhaseResult {
  written: WrittenDocument[];
  segment: { documents: number; blocks: number } | null;
  dims: number | null;
  embedding: EmbedTotals | null;
  /** Blocks whose vector rows came from the parent. */
  carriedBlocks: number;
  durations: { embed: number; index: number; write: number };
}

const summary = (d: Document): WrittenDocument => ({ ...headOf(d), title: d.title, aliases: d.aliases });

/** Cuts items (doc_id order) into batches of about `size` blocks, whole documents each. */
function batches(items: readonly Item[], size: number): Item[][] {
  const out: Item[][] = [];
  let cur: Item[] = [];
  let blocks = 0;
  for (const it of items) {
    if (cur.length > 0 && blocks + it.blocks > size) {
      out.push(cur);
      cur = [];
      blocks = 0;
    }
    cur.push(it);
    blocks += it.blocks;
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Writes the build's new segment batch by batch in doc_id order: each batch's documents are read back
 * (from the spool, or from the parent's segments), their blocks looked up in the embedding cache at
 * once, and then each document in turn is embedded (cache, then endpoint), appended to the segment and
 * its texts sent to the keyword-index worker, which builds the batch's index while the next batch is
 * written. A spooled document is parsed when its turn comes and dropped after it: a batch's documents
 * held together, as objects, lived long enough to reach the old generation, and the host's heap grew
 * by about 80 MB of them between collections. Documents that fail to embed are left out.
 */
export async function writeNewSegment(input: SegmentPhaseInput): Promise<SegmentPhaseResult> {
  const items: Item[] = [...input.fresh.map((f): Item => ({ doc_id: f.doc_id, blocks: f.blocks, fresh: f })), ...input.rewrite.map((r): Item => ({ doc_id: r.doc_id, blocks: r.previous.blocks, carried: r }))].sort(byDocId);
  const capacity = items.reduce((n, it) => n + it.blocks, 0);
  const durations = { embed: 0, index: 0, write: 0 };
  const written: WrittenDocument[] = [];
  let writer = null as SegmentWriter | null;
  let dims = input.carriedDims;
  let carriedBlocks = 0;
  const all = batches(items, input.batchBlocks ?? BATCH_BLOCKS);
  // The extension host builds on its event loop's thread: long steps give it back every 8 ms.
  const slicer = new Slicer();
  const tick = () => slicer.tick();
  /** One document's normalised rows, reused from document to document. */
  let docRows = new Float32Array(0);
  if (all.length) await input.spool.flush();
  // One keyword-index worker for every batch of the segment.
  const indexer = new Bm25OffThread();
  /** The keyword index of the batch written last, built in the worker while the next one is written. */
  let building: { index: Promise<Bm25Data>; base: number } | null = null;
  const indexIn = async (b: { index: Promise<Bm25Data>; base: number }) => {
    let t = performance.now();
    const bm25 = await b.index;
    durations.index += performance.now() - t;
    t = performance.now();
    // Indexes in run files go back to the worker, which cuts the next batches' arrays from them.
    for (const done of await writer!.addKeywordIndex(bm25, b.base)) indexer.recycle(done);
    durations.write += performance.now() - t;
  };
  const writeBatch = async (k: number, batch: Item[]) => {
    input.signal?.throwIfAborted();
    input.onBatch?.(k, all.length);
    let t = performance.now();
    const freshItems = batch.flatMap((it) => ('fresh' in it ? [it.fresh] : []));
    const spooled = await input.spool.readBatch(freshItems);
    const carried = await input.carry.read(batch.flatMap((it) => ('carried' in it ? [it.carried] : [])));
    // The batch is in doc_id order; spooled and carried documents each in theirs within it.
    const at: Array<{ fresh: number } | { carried: Carried }> = [];
    let f = 0;
    let c = 0;
    for (const it of batch) at.push('fresh' in it ? { fresh: f++ } : { carried: carried[c++]! });
    const docAt = (i: number): Document => {
      const a = at[i]!;
      return 'fresh' in a ? spooled.parse(a.fresh) : a.carried.doc;
    };
    const rowsAt = (i: number): Float32Array | null => {
      const a = at[i]!;
      return input.embed && 'carried' in a ? a.carried.rows : null;
    };
    if (input.embed) await input.embed.beginBatch();
    durations.embed += performance.now() - t;
    const base = writer?.written ?? 0;
    let job: Bm25Job | null = null;
    for (let first = 0; first < batch.length; ) {
      // The documents of one look-up: about LOOKUP_BLOCKS blocks, whole documents.
      let end = first + 1;
      for (let n = batch[first]!.blocks; end < batch.length && n + batch[end]!.blocks <= LOOKUP_BLOCKS; end++) n += batch[end]!.blocks;
      const keysOf: string[][] = [];
      if (input.embed) {
        t = performance.now();
        // First pass: the keys of the blocks without carried rows, for one look-up of them all.
        for (let i = first; i < end; i++) {
          keysOf.push(rowsAt(i) ? [] : docAt(i).blocks.map((b) => embeddingKey(b.text)));
          await tick();
        }
        await input.embed.lookup(keysOf.flat());
        durations.embed += performance.now() - t;
      }
      for (let i = first; i < end; i++) {
        input.signal?.throwIfAborted();
        t = performance.now();
        const doc = docAt(i);
        let rows = rowsAt(i);
        if (input.embed) {
          if (rows) carriedBlocks += doc.blocks.length;
          else {
            const vectors = await input.embed.vectorsOf(doc, keysOf[i - first]!);
            if (!vectors) continue;
            dims ??= vectors[0]?.length ?? null;
            if (dims !== null) {
              // Every row is written here: a reused buffer needs no clearing.
              const n = vectors.length * dims;
              if (docRows.length < n) docRows = new Float32Array(n);
              rows = docRows.subarray(0, n);
              vectors.forEach((v, b) => rows!.set(v, b * dims!));
              normalizeRows(rows, dims);
            }
          }
        }
        durations.embed += performance.now() - t;
        t = performance.now();
        writer ??= await SegmentWriter.create(input.staged, input.folder, input.scratch, capacity, input.embed ? dims : null);
        await writer.addDocument(doc, input.embed && dims !== null ? rows : null, tick);
        const { texts, headings } = keywordFields([doc]);
        job ??= indexer.begin(input.signal);
        await job.add(texts, headings);
        written.push(summary(doc));
        durations.write += performance.now() - t;
      }
      first = end;
    }
    if (building) await indexIn(building);
    building = null;
    if (job) {
      building = { index: job.finish(), base };
      // Settled here too: an index never awaited (an error in the next batch) must not reject unseen.
      building.index.catch(() => undefined);
    }
  };
  try {
    for (const [k, batch] of all.entries()) await writeBatch(k, batch);
    if (building) await indexIn(building);
    // Its last index is in: the worker's heap (30–60 MB at 100k blocks) goes before the runs are merged.
    await indexer.close();
    input.onFinishing?.();
    const t = performance.now();
    const segment = writer ? await writer.finish() : null;
    durations.index += performance.now() - t;
    return { written, segment, dims, embedding: input.embed ? await input.embed.finish() : null, carriedBlocks, durations };
  } catch (err) {
    await writer?.abort();
    // Vectors already paid for are kept for the next build.
    await input.embed?.flush().catch(() => undefined);
    throw err;
  } finally {
    await indexer.close();
    await input.spool.dispose();
    input.staged.untrack(input.spool.file);
  }
}

/** Where a build's scratch files go inside its staged folder (removed before the folder is synced). */
export function scratchDir(stagedRoot: string): string {
  return path.join(stagedRoot, 'scratch');
}
