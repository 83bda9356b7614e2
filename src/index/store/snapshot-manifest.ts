import { z } from 'zod';
import { ChunkingParams } from '../model';
import { Document, UnreadPage } from '../../shared/document';
import { FailedDocument } from '../../shared/failed-document';
import { SkippedEntry } from '../sources/secret-files';
import { Source } from '../sources/sources';

/**
 * 3: each segment says its format (segment-format.ts): 2 for those this DocQA writes (int8 vectors,
 * documents and blocks in bounded pieces, postings read per term). 2: a snapshot is a list of segments
 * (each its own documents, keyword index and vectors), shared with the parent by hard link; still read,
 * its segments being of format 1. 1 had one set of files at the snapshot's root and is no longer read.
 */
export const SNAPSHOT_FORMAT_VERSION = 3;
/** Manifests of this version are read as well (their segments are of format 1). */
export const OLDEST_READ_SNAPSHOT_FORMAT = 2;
/**
 * documents.json of a format-1 segment is `{formatVersion, documents}`: 1, or 2 when its blocks and
 * sections carry the locations of the rendered formats (`paragraphs`, `chapter`, `slide`), as DocQA
 * wrote them before format-2 segments. Both are read; neither is written any more.
 */
export const SEGMENT_FORMAT_VERSION = 2;
/** documents.jsonl of a format-2 segment starts with a `{formatVersion: 2}` line. */
export const SEGMENT_FORMAT_VERSION_2 = 2;

export const SnapshotState = z.enum(['building', 'ready', 'ready_partial', 'failed']);
export type SnapshotState = z.infer<typeof SnapshotState>;

export const ManifestEmbedding = z.discriminatedUnion('provider', [
  z.object({ provider: z.literal('none') }),
  z.object({ provider: z.literal('openai-compatible'), family: z.string(), model: z.string(), dimensions: z.number().int().positive() }),
]);
export type ManifestEmbedding = z.infer<typeof ManifestEmbedding>;

/** One live document: where it is, and what an unchanged file must still match (size, mtime, source). */
export const ManifestDocument = z.object({
  doc_id: z.string(),
  path: z.string(),
  title: z.string(),
  content_hash: z.string(),
  byte_size: z.number().int().min(0),
  /** Modification time when read; with the size, lets the next build skip reading an unchanged file. */
  mtime_ms: z.number(),
  source_label: z.string(),
  aliases: z.array(z.string()),
  blocks: z.number().int(),
  tokens: z.number().int(),
  /** Taken over from the parent snapshot without parsing. */
  reused: z.boolean(),
  /** Pages indexed without their text (a partial document), kept when the document is reused; absent when none. */
  unread_pages: z.array(UnreadPage).optional(),
  segment: z.string(),
});
export type ManifestDocument = z.infer<typeof ManifestDocument>;

export const ManifestSegment = z.object({
  id: z.string().regex(/^g[0-9a-z-]+$/),
  /** Which files the segment has (segment-format.ts); absent in manifests of format 2, whose segments are all of format 1. */
  format: z.union([z.literal(1), z.literal(2)]).default(1),
  /** Every document and block the segment's files hold, live or replaced. */
  documents: z.number().int().min(0),
  blocks: z.number().int().min(0),
});
export type ManifestSegment = z.infer<typeof ManifestSegment>;

export const SnapshotManifest = z.object({
  /** As on disk: 2 for a snapshot an older DocQA wrote (read as is, never rewritten), 3 for one this DocQA wrote. */
  formatVersion: z.union([z.literal(OLDEST_READ_SNAPSHOT_FORMAT), z.literal(SNAPSHOT_FORMAT_VERSION)]),
  id: z.string(),
  parent: z.string().nullable(),
  state: SnapshotState,
  created_at: z.string(),
  finished_at: z.string().nullable(),
  app_version: z.string(),
  sources: z.array(Source),
  documents: z.array(ManifestDocument),
  /** The segments the live documents are in, oldest first; a segment may also hold replaced documents. */
  segments: z.array(ManifestSegment),
  failed_documents: z.array(FailedDocument),
  /** Entries of the sources not read on purpose (secret-looking, outside the source, .gitignored); absent in snapshots built before it was recorded. */
  skipped: z.array(SkippedEntry).default([]),
  chunking: ChunkingParams,
  /** How documents were cut into sections and blocks (parse-version.ts); absent in snapshots built before it was recorded: 1. */
  parse_version: z.number().int().min(1).default(1),
  /** Why this build parsed every document again instead of taking over its parent's parse results (null: it did not have to). */
  reparse_reason: z.string().nullable().default(null),
  tokenizer: z.string(),
  keyword_tokenizer: z.string(),
  embedding: ManifestEmbedding,
  fusion: z.object({ method: z.literal('rrf'), k: z.number(), depth: z.number() }),
  stats: z.object({
    documents: z.number().int(),
    blocks: z.number().int(),
    failed_documents: z.number().int(),
    reused_documents: z.number().int(),
    embedded_blocks: z.number().int(),
    cached_embeddings: z.number().int(),
    embedding_tokens: z.number().int(),
    embedding_requests: z.number().int(),
    durations_ms: z.object({ ingest: z.number(), embed: z.number(), index: z.number(), write: z.number() }),
  }),
  error: z.string().nullable(),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;

export const DocumentsPayload = z.object({ formatVersion: z.union([z.literal(1), z.literal(SEGMENT_FORMAT_VERSION)]), documents: z.array(Document) });

/** A line of a format-2 segment's documents.jsonl: a document without its blocks (in blocks.pack and text.bin), which are counted. */
export const StoredDocument = Document.omit({ blocks: true }).extend({ blocks: z.number().int().min(0) });
export type StoredDocument = z.infer<typeof StoredDocument>;

export const ActivePointer = z.object({ formatVersion: z.literal(1), snapshot_id: z.string() });
