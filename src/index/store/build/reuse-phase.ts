import fsSync from 'node:fs';
import path from 'node:path';
import { TOKENIZER_NAME } from '../../../common/tokenizer';
import { StoreError } from '../../../common/errors';
import { type EmbeddingConfig, endpointFamily } from '../../embed/embedding-client';
import type { ReusedFile } from '../../ingest/ingest-sources';
import type { Document, IngestOptions } from '../../model';
import { reparseReason } from '../../blocks/parse-version';
import { KEYWORD_TOKENIZER_NAME } from '../../search/keyword-tokenizer';
import { planMerges } from '../segment-plan';
import { type RowRun, SEGMENT_FILES, readSegmentDocuments, scatterSegmentVectors, segmentDir } from '../segment-store';
import type { ManifestDocument, ManifestSegment, SnapshotManifest } from '../snapshot-manifest';

/**
 * How much of the parent a build can take over. `segments`: its segments as they are (same chunking,
 * tokenizers and embedding); `parse`: only its parse results (the embedding changed); `none`.
 */
export type ReuseLevel = 'segments' | 'parse' | 'none';

export function reuseLevel(parent: SnapshotManifest | null, opts: { ingest: IngestOptions; embedding: EmbeddingConfig }): ReuseLevel {
  if (!parent || reparseReason(parent.parse_version) !== null || parent.tokenizer !== TOKENIZER_NAME || JSON.stringify(parent.chunking) !== JSON.stringify(opts.ingest.chunking)) return 'none';
  if (parent.keyword_tokenizer !== KEYWORD_TOKENIZER_NAME) return 'parse';
  const e = parent.embedding;
  const c = opts.embedding;
  if (e.provider === 'none' && c.provider === 'none') return 'segments';
  if (e.provider !== 'openai-compatible' || c.provider !== 'openai-compatible') return 'parse';
  const same = e.family === endpointFamily(c.base_url) && e.model === c.model && (c.dimensions === null || c.dimensions === e.dimensions);
  return same ? 'segments' : 'parse';
}

/** Every segment file the manifest relies on is there, vectors of the right size (a few stats, no reads). */
export function segmentsIntact(folder: string, m: SnapshotManifest): boolean {
  const dims = m.embedding.provider === 'none' ? null : m.embedding.dimensions;
  return m.segments.every((sg) => {
    const at = segmentDir(folder, sg.id);
    try {
      fsSync.statSync(path.join(at, SEGMENT_FILES.documents));
      fsSync.statSync(path.join(at, SEGMENT_FILES.keyword));
      return dims === null || fsSync.statSync(path.join(at, SEGMENT_FILES.vectors)).size === sg.blocks * dims * 4;
    } catch {
      return false;
    }
  });
}

/** Which parent segments a build keeps as they are, and which unchanged documents it must rewrite. */
export interface SegmentPlan {
  /** Unchanged documents by the parent segment they stay in. */
  stays: Map<string, Array<ReusedFile<ManifestDocument>>>;
  /** Unchanged documents rewritten into the new segment (id or source changed, or their segment merged). */
  rewrite: Array<ReusedFile<ManifestDocument>>;
  /** Parent segments kept (linked) as they are. */
  kept: ManifestSegment[];
  /** Blocks of the kept segments that are still live. */
  linkedBlocks: number;
}

/**
 * Unchanged documents stay in their parent segment unless it is merged, or the document's id or source
 * changed (then it is rewritten, still unparsed). `incoming` is the block count of the new documents.
 */
export function planSegments(reused: ReadonlyArray<ReusedFile<ManifestDocument>>, reuse: ReuseLevel, parent: SnapshotManifest | null, incoming: number): SegmentPlan {
  const stays = new Map<string, Array<ReusedFile<ManifestDocument>>>();
  const rewrite: Array<ReusedFile<ManifestDocument>> = [];
  for (const r of reused) {
    const p = r.previous;
    const same = reuse === 'segments' && r.doc_id === p.doc_id && r.source_label === p.source_label && JSON.stringify(r.aliases) === JSON.stringify(p.aliases);
    if (!same) rewrite.push(r);
    else {
      const list = stays.get(p.segment);
      if (list) list.push(r);
      else stays.set(p.segment, [r]);
    }
  }
  const parentSegments = reuse === 'segments' ? parent!.segments : [];
  const uses = parentSegments.map((sg) => ({ id: sg.id, blocks: sg.blocks, live: (stays.get(sg.id) ?? []).reduce((n, r) => n + r.previous.blocks, 0) }));
  const merged = planMerges(uses, incoming + rewrite.reduce((n, r) => n + r.previous.blocks, 0));
  for (const id of merged) rewrite.push(...(stays.get(id) ?? []));
  const kept = parentSegments.filter((sg) => !merged.has(sg.id) && (stays.get(sg.id)?.length ?? 0) > 0);
  const linkedBlocks = uses.reduce((n, u) => n + (merged.has(u.id) ? 0 : u.live), 0);
  return { stays, rewrite, kept, linkedBlocks };
}

/** A document taken from a parent segment into the new one, with its vector rows when they still fit. */
export interface Carried {
  doc: Document;
  rows: Float32Array | null;
}

/**
 * Reads the parent's documents (and, with `dims`, only their normalised vector rows) that must be
 * rewritten into the new segment, patched with their current doc_id and source.
 */
export async function carryOver(parentFolder: string, files: ReadonlyArray<ReusedFile<ManifestDocument>>, dims: number | null): Promise<Carried[]> {
  const bySegment = new Map<string, Array<ReusedFile<ManifestDocument>>>();
  for (const f of files) {
    const list = bySegment.get(f.previous.segment) ?? [];
    list.push(f);
    bySegment.set(f.previous.segment, list);
  }
  const out: Carried[] = [];
  for (const [segment, list] of bySegment) {
    const folder = segmentDir(parentFolder, segment);
    const at = new Map<string, { doc: Document; row: number }>();
    let total = 0;
    for (const d of await readSegmentDocuments(folder)) {
      at.set(d.doc_id, { doc: d, row: total });
      total += d.blocks.length;
    }
    const found = list.map((f) => {
      const hit = at.get(f.previous.doc_id);
      if (!hit) throw new StoreError('store_corrupt', `segment ${segment} of the parent snapshot lacks ${f.previous.path}`);
      return { f, ...hit };
    });
    // Only the carried documents' rows are read, packed one after the other.
    const runs: RowRun[] = [];
    let packed = 0;
    for (const { doc, row } of found) {
      runs.push([row, packed, doc.blocks.length]);
      packed += doc.blocks.length;
    }
    const rows = dims === null ? null : new Float32Array(packed * dims);
    if (rows && dims !== null) await scatterSegmentVectors(folder, total, dims, runs, rows);
    found.forEach(({ f, doc }, k) => {
      const [, start, n] = runs[k]!;
      out.push({
        doc: { ...doc, doc_id: f.doc_id, source_label: f.source_label, aliases: f.aliases },
        rows: rows && dims !== null ? rows.subarray(start * dims, (start + n) * dims) : null,
      });
    });
  }
  return out;
}

