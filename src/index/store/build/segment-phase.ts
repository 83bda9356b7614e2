import path from 'node:path';
import { Slicer } from '../../../common/slicer';
import type { ReusedFile } from '../../ingest/ingest-sources';
import type { Document } from '../../../shared/document';
import { headOf } from '../../ingest/serialized-document';
import { type Bm25Data, keywordFields } from '../../search/bm25-build';
import { Bm25OffThread } from '../../search/bm25-off-thread';
import { SegmentWriter } from '../segment-writer';
import type { ManifestDocument } from '../snapshot-manifest';
import type { StagedFolder } from '../staged-folder';
import type { DocumentSpool, SpooledDocument } from './document-spool';
import type { EmbedSession, EmbedTotals } from './embed-phase';
import type { CarrySource } from './reuse-phase';
import { type WrittenDocument, assembleMatrix, byDocId } from './write-phase';

/**
 * Blocks per batch of the new segment: what a build holds at once (their documents, vectors, keyword
 * index) while writing a segment of any size: at 1,024 dimensions about 50 MB of it, two batches in
 * flight. The per-batch costs (a worker start, a run file, one more run to merge) stay small against
 * 4k blocks' work.
 */
export const BATCH_BLOCKS = 4096;

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
 * (from the spool, or from the parent's segments), embedded (cache, then endpoint), indexed in a worker
 * and appended to the segment; the batch is then dropped. Documents that fail to embed are left out.
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
  const matrices: Array<Float32Array | undefined> = [undefined, undefined];
  if (all.length) await input.spool.flush();
  /** A batch read, embedded and assembled; its keyword index built in a worker once started. */
  type Ready = { kept: Document[]; matrix: Float32Array | null; bm25: Promise<Bm25Data> | null };
  const prepare = async (k: number, batch: Item[]): Promise<Ready | null> => {
    input.signal?.throwIfAborted();
    input.onBatch?.(k, all.length);
    let t = performance.now();
    const freshItems = batch.flatMap((it) => ('fresh' in it ? [it.fresh] : []));
    const carriedItems = batch.flatMap((it) => ('carried' in it ? [it.carried] : []));
    const freshDocs = await input.spool.read(freshItems, tick);
    const carried = await input.carry.read(carriedItems);
    const rowsOf = new Map<string, Float32Array>();
    const docs: Document[] = [...freshDocs];
    for (const c of carried) {
      docs.push(c.doc);
      if (c.rows && input.embed) rowsOf.set(c.doc.doc_id, c.rows);
    }
    docs.sort(byDocId);
    let kept = docs;
    let vectorsByDoc = new Map<string, Float32Array[]>();
    if (input.embed) {
      const e = await input.embed.embed(docs.filter((d) => !rowsOf.has(d.doc_id)));
      vectorsByDoc = e.vectorsByDoc;
      const embedded = new Set(e.kept.map((d) => d.doc_id));
      kept = docs.filter((d) => rowsOf.has(d.doc_id) || embedded.has(d.doc_id));
      dims ??= e.kept.length ? (e.vectorsByDoc.get(e.kept[0]!.doc_id)![0]?.length ?? null) : null;
      carriedBlocks += kept.reduce((n, d) => n + (rowsOf.has(d.doc_id) ? d.blocks.length : 0), 0);
    }
    durations.embed += performance.now() - t;
    if (kept.length === 0) return null;
    t = performance.now();
    // Two matrices, taken in turn: a batch's is free again once the batch two before it is written
    // (a fresh 16 MB buffer per batch lingered until a collection and kept the build's memory high).
    const matrix = input.embed && dims !== null ? (matrices[k % 2] = assembleMatrix(kept, dims, rowsOf, vectorsByDoc, matrices[k % 2])) : null;
    durations.write += performance.now() - t;
    return { kept, matrix, bm25: null };
  };
  // One keyword-index worker for every batch of the segment.
  const indexer = new Bm25OffThread();
  const startIndex = (r: Ready) => {
    const { texts, headings } = keywordFields(r.kept);
    r.bm25 = indexer.build(texts, headings, input.signal);
    // Settled here too: a batch whose index is never awaited (an error in the next) must not reject unseen.
    r.bm25.catch(() => undefined);
  };
  const write = async (r: Ready) => {
    let t = performance.now();
    const bm25 = await r.bm25!;
    durations.index += performance.now() - t;
    t = performance.now();
    writer ??= await SegmentWriter.create(input.staged, input.folder, input.scratch, capacity, input.embed ? dims : null);
    await writer.add(r.kept, r.matrix, bm25, tick);
    written.push(...r.kept.map(summary));
    durations.write += performance.now() - t;
  };
  try {
    // Two batches in flight: while one's keyword index is built in its worker, this thread reads and
    // embeds the next (on two cores, most of a batch's time). One worker at a time: each holds about
    // 12 bytes a posting while it builds.
    let ready: Ready | null = null;
    for (const [k, batch] of all.entries()) {
      const next = await prepare(k, batch);
      if (ready) await write(ready);
      if (next) startIndex(next);
      ready = next;
    }
    if (ready) await write(ready);
    // Its last index is in: the worker's heap (30–60 MB at 100k blocks) goes before the runs are merged.
    await indexer.close();
    input.onFinishing?.();
    const t = performance.now();
    const segment = writer ? await writer.finish() : null;
    durations.index += performance.now() - t;
    return { written, segment, dims, embedding: input.embed ? await input.embed.finish() : null, carriedBlocks, durations };
  } catch (err) {
    await writer?.abort();
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
