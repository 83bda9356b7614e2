import { z } from 'zod';

/**
 * The index's own parameters: block sizing and ingestion limits. The document shape it builds (Document,
 * Block, Section, BlockLocation, FailedDocument) is declared in src/shared, which the webviews read too.
 */

/** Block sizing, in tokens of the index tokenizer. Recorded in the snapshot manifest. */
export const ChunkingParams = z
  .object({
    target_tokens: z.number().int().min(16).default(256),
    max_tokens: z.number().int().min(32).default(512),
    /** Neighbouring units smaller than this merge within a section while the result stays <= target. */
    min_tokens: z.number().int().min(0).default(48),
  })
  .refine((p) => p.target_tokens <= p.max_tokens, { message: 'target_tokens must not exceed max_tokens' })
  .refine((p) => p.min_tokens <= p.target_tokens, { message: 'min_tokens must not exceed target_tokens' });
export type ChunkingParams = z.infer<typeof ChunkingParams>;

export const IngestOptions = z.object({
  chunking: ChunkingParams.default({ target_tokens: 256, max_tokens: 512, min_tokens: 48 }),
  /** Files larger than this fail with `too_large` before they are read. */
  max_file_bytes: z.number().int().min(1).default(64 * 1024 * 1024),
  /**
   * Wall time one document may take in a worker (read, parse, block) before the worker is stopped and the
   * document fails with `too_slow`: a PDF that makes pdf.js loop must not hold up the build for ever.
   */
  max_document_ms: z.number().int().min(1).default(60_000),
  /**
   * Heap of each ingestion worker (V8 old generation, MB): a document that balloons past it kills only its
   * worker, and fails with `out_of_memory`, instead of taking the extension host's memory.
   */
  max_worker_memory_mb: z.number().int().min(256).default(2048),
  /**
   * Read the pages of a PDF that are images without text (scans) with OCR (English and Simplified
   * Chinese, tesseract.js in the ingestion worker). Off: those pages are named as unread instead.
   */
  ocr: z.boolean().default(false),
  /**
   * Globs for every source (the host's settings): `include` applies to a source that has none of its
   * own; `exclude` adds to each source's own.
   */
  globs: z.object({ include: z.array(z.string().min(1)).default([]), exclude: z.array(z.string().min(1)).default([]) }).default({ include: [], exclude: [] }),
});
export type IngestOptions = z.infer<typeof IngestOptions>;
export const DEFAULT_INGEST_OPTIONS: IngestOptions = IngestOptions.parse({});
