import { z } from 'zod';
import { ChunkingParams, Document, FailedDocument } from './model';
import { Source } from './sources';

export const SNAPSHOT_FORMAT_VERSION = 1;

export const SnapshotState = z.enum(['building', 'ready', 'ready_partial', 'failed']);
export type SnapshotState = z.infer<typeof SnapshotState>;

export const ManifestEmbedding = z.discriminatedUnion('provider', [
  z.object({ provider: z.literal('none') }),
  z.object({ provider: z.literal('openai-compatible'), family: z.string(), model: z.string(), dimensions: z.number().int().positive() }),
]);
export type ManifestEmbedding = z.infer<typeof ManifestEmbedding>;

export const SnapshotManifest = z.object({
  formatVersion: z.literal(SNAPSHOT_FORMAT_VERSION),
  id: z.string(),
  parent: z.string().nullable(),
  state: SnapshotState,
  created_at: z.string(),
  finished_at: z.string().nullable(),
  app_version: z.string(),
  sources: z.array(Source),
  documents: z.array(
    z.object({ doc_id: z.string(), path: z.string(), title: z.string(), content_hash: z.string(), blocks: z.number().int(), tokens: z.number().int(), reused: z.boolean() }),
  ),
  failed_documents: z.array(FailedDocument),
  chunking: ChunkingParams,
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

export const DocumentsPayload = z.object({ formatVersion: z.literal(SNAPSHOT_FORMAT_VERSION), documents: z.array(Document) });

export const ActivePointer = z.object({ formatVersion: z.literal(1), snapshot_id: z.string() });
