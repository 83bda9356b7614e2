import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { readFully } from '../../../common/read-file';
import { Slicer } from '../../../common/slicer';
import { TOKENIZER_NAME } from '../../../common/tokenizer';
import { StoreError } from '../../../common/errors';
import { type EmbeddingConfig, endpointFamily } from '../../embed/embedding-client';
import type { ReusedFile } from '../../ingest/ingest-sources';
import type { Block, Document } from '../../../shared/document';
import type { IngestOptions } from '../../model';
import { reparseReason } from '../../blocks/parse-version';
import { KEYWORD_TOKENIZER_NAME } from '../../search/keyword-tokenizer';
import { planMerges } from '../segment-plan';
import { type RowRun, readSegmentDocuments, scatterSegmentVectors, segmentDir } from '../segment-store';
import { CURRENT_SEGMENT_FORMAT, SEGMENT_FILES_2, segmentFileNames, vectorFileSizes } from '../segment-format';
import { readBlocks, readStoredDocuments } from '../segment-reader';
import { blockLocation, sectionNames } from '../block-table';
import type { ManifestDocument, ManifestSegment, SnapshotManifest, StoredDocument } from '../snapshot-manifest';

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
      for (const name of segmentFileNames(sg.format, false)) fsSync.statSync(path.join(at, name));
      if (dims === null) return true;
      return Object.entries(vectorFileSizes(sg.format, sg.blocks, dims)).every(([name, size]) => fsSync.statSync(path.join(at, name)).size === size);
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
  // Segments of an older format are rewritten in the current one (copy-on-write: the parent keeps its files).
  for (const sg of parentSegments) if (sg.format !== CURRENT_SEGMENT_FORMAT) merged.add(sg.id);
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

/** A parent segment's documents by doc_id, and each one's first row. */
interface ParentSegment {
  folder: string;
  rows: number;
  at: Map<string, { row: number; blocks: number }>;
  /** The documents (blocks with their texts), in the order asked. */
  documents(ids: readonly string[]): Promise<Document[]>;
}

/** A format-1 segment: its documents.json, read whole (an older build's segment). */
async function openFormat1(folder: string): Promise<ParentSegment> {
  const docs = await readSegmentDocuments(folder);
  const at = new Map<string, { row: number; blocks: number }>();
  const byId = new Map<string, Document>();
  let rows = 0;
  for (const d of docs) {
    at.set(d.doc_id, { row: rows, blocks: d.blocks.length });
    byId.set(d.doc_id, d);
    rows += d.blocks.length;
  }
  return { folder, rows, at, documents: async (ids) => ids.map((id) => byId.get(id)!) };
}

/** A format-2 segment: its document lines and block table; texts read per document from text.bin. */
async function openFormat2(folder: string, blocks: number): Promise<ParentSegment> {
  const slicer = new Slicer();
  const stored = await readStoredDocuments(folder, slicer);
  const table = await readBlocks(folder, blocks, slicer);
  const names = sectionNames(table);
  const at = new Map<string, { row: number; blocks: number }>();
  const byId = new Map<string, StoredDocument>();
  let rows = 0;
  for (const d of stored) {
    at.set(d.doc_id, { row: rows, blocks: d.blocks });
    byId.set(d.doc_id, d);
    rows += d.blocks;
  }
  if (rows !== blocks) throw new StoreError('store_corrupt', `segment ${folder} holds ${rows} blocks, its block table ${blocks}`);
  const textFile = path.join(folder, SEGMENT_FILES_2.text);
  return {
    folder,
    rows,
    at,
    async documents(ids) {
      const h = await fs.open(textFile, 'r');
      try {
        const out: Document[] = [];
        for (const id of ids) {
          const s = byId.get(id)!;
          const first = at.get(id)!.row;
          const start = first === 0 ? 0 : table.textEnds[first - 1]!;
          const bytes = Buffer.allocUnsafe(s.blocks ? table.textEnds[first + s.blocks - 1]! - start : 0);
          if (bytes.length && !(await readFully(h, bytes, start))) throw new StoreError('store_corrupt', `${textFile} ended early`);
          const blocksOf = Array.from({ length: s.blocks }, (_, b): Block => {
            const i = first + b;
            const from = (i === 0 ? 0 : table.textEnds[i - 1]!) - start;
            return { block_id: table.ids.at(i)!, block_index: table.blockIndex[i]!, section_path: names(table.section[i]!), text: bytes.toString('utf8', from, table.textEnds[i]! - start), token_count: table.tokens[i]!, location: blockLocation(table, i) };
          });
          out.push({ ...s, blocks: blocksOf });
        }
        return out;
      } finally {
        await h.close();
      }
    },
  };
}

/**
 * Reads the parent's documents that must be rewritten into the new segment, a batch at a time (and,
 * with `dims`, only their normalised vector rows), patched with their current doc_id and source. Each
 * parent segment is opened once per build: its document list and block table, not its texts or vectors.
 */
export class CarrySource {
  private readonly open = new Map<string, Promise<ParentSegment>>();

  constructor(
    private readonly parentFolder: string,
    private readonly segments: ReadonlyMap<string, ManifestSegment>,
    private readonly dims: number | null,
  ) {}

  private segment(id: string): Promise<ParentSegment> {
    let p = this.open.get(id);
    if (!p) {
      const sg = this.segments.get(id);
      if (!sg) throw new StoreError('store_corrupt', `the parent snapshot has no segment ${id}`);
      const folder = segmentDir(this.parentFolder, id);
      p = sg.format === 2 ? openFormat2(folder, sg.blocks) : openFormat1(folder);
      this.open.set(id, p);
    }
    return p;
  }

  async read(files: ReadonlyArray<ReusedFile<ManifestDocument>>): Promise<Carried[]> {
    const bySegment = new Map<string, Array<ReusedFile<ManifestDocument>>>();
    for (const f of files) {
      const list = bySegment.get(f.previous.segment) ?? [];
      list.push(f);
      bySegment.set(f.previous.segment, list);
    }
    const carried = new Map<ReusedFile<ManifestDocument>, Carried>();
    for (const [segment, list] of bySegment) {
      const seg = await this.segment(segment);
      for (const f of list) if (!seg.at.has(f.previous.doc_id)) throw new StoreError('store_corrupt', `segment ${segment} of the parent snapshot lacks ${f.previous.path}`);
      const docs = await seg.documents(list.map((f) => f.previous.doc_id));
      // Only the carried documents' rows are read, packed one after the other.
      const runs: RowRun[] = [];
      let packed = 0;
      for (const f of list) {
        const { row, blocks } = seg.at.get(f.previous.doc_id)!;
        runs.push([row, packed, blocks]);
        packed += blocks;
      }
      const dims = this.dims;
      const rows = dims === null ? null : new Float32Array(packed * dims);
      if (rows && dims !== null) await scatterSegmentVectors(seg.folder, seg.rows, dims, runs, rows);
      list.forEach((f, k) => {
        const [, start, n] = runs[k]!;
        carried.set(f, {
          doc: { ...docs[k]!, doc_id: f.doc_id, source_label: f.source_label, aliases: f.aliases },
          rows: rows && dims !== null ? rows.subarray(start * dims, (start + n) * dims) : null,
        });
      });
    }
    return files.map((f) => carried.get(f)!);
  }
}
