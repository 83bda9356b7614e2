import { z } from 'zod';

/**
 * A document the build could not index, or indexed without some pages: the stage it failed at and why,
 * as codes (src/common/errors.ts throws them as IngestError). The snapshot manifest lists them.
 */

/** Where in the pipeline a document failed. Later stages (embed, index) are added by the index build. */
export const INGEST_STAGES = ['read', 'decode', 'parse', 'block', 'embed', 'index'] as const;
export type IngestStage = (typeof INGEST_STAGES)[number];

/** What was wrong with a document that could not be ingested. */
export const INGEST_ERROR_CODES = [
  'not_found',
  'unreadable',
  'empty',
  'too_large',
  'binary',
  'encoding',
  'unsupported_format',
  'encrypted',
  'corrupt',
  'no_text',
  'internal',
  'upstream_unavailable',
  'symlink_loop',
  'secret_content',
  /** Parsing took longer than `ingest.max_document_ms`: the worker was stopped and replaced. */
  'too_slow',
  /** Parsing needed more memory than `ingest.max_worker_memory_mb`: only its worker died. */
  'out_of_memory',
] as const;
export type IngestErrorCode = (typeof INGEST_ERROR_CODES)[number];

export const FailedDocument = z.object({
  path: z.string(),
  stage: z.enum(INGEST_STAGES),
  code: z.enum(INGEST_ERROR_CODES),
  message: z.string(),
  /** Set when the document is indexed without these pages only (a partial document): the rest is in the snapshot. */
  pages: z.array(z.number().int().min(1)).optional(),
});
export type FailedDocument = z.infer<typeof FailedDocument>;
