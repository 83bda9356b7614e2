import { z } from 'zod';
import { INGEST_ERROR_CODES, INGEST_STAGES } from '../common/errors';

/** Where a block sits in its source, so a citation can open the exact spot. Lines and pages are 1-based. */
export const LineRange = z.object({ kind: z.literal('lines'), line_start: z.number().int().min(1), line_end: z.number().int().min(1) });
export type LineRange = z.infer<typeof LineRange>;
/**
 * A region of a page: left, top, right, bottom in points of the page as it is shown (pdf.js's viewport
 * at scale 1: y down from the top, the page's rotation applied), so a view multiplies by its scale.
 */
export const PageRegion = z.tuple([z.number(), z.number(), z.number(), z.number()]);
export type PageRegion = z.infer<typeof PageRegion>;
/** A block's lines on its page: a few dozen at most (a block is a few hundred tokens); more is not a block's. */
export const MAX_PAGE_REGIONS = 400;
/**
 * `boxes`: where the block's lines are on the page, when the page has no text layer to find its text in
 * (lines read by OCR from a scan): the PDF page view highlights these regions. Absent otherwise, and in
 * snapshots built before DocQA kept them (the view then opens the page without a highlight).
 */
export const PageLocation = z.object({ kind: z.literal('page'), page: z.number().int().min(1), boxes: z.array(PageRegion).max(MAX_PAGE_REGIONS).optional() });
export type PageLocation = z.infer<typeof PageLocation>;
/**
 * The formats read as a rendered document (Word, web pages, e-books, slides) count their content
 * elements — a paragraph, a heading, a list, a table, a quote, a code block, each one element — from 1
 * in reading order: in the whole document (`paragraphs`), within one chapter of an e-book, numbered by
 * its position in the book's spine (`chapter`), within one slide, its notes after its text (`slide`).
 * The document view (docs/document-view.md) renders the same elements from the file and highlights
 * `first`..`last`. A segment holding any of these is written as format 2 (see snapshot-manifest.ts).
 */
const ElementSpan = { first: z.number().int().min(1), last: z.number().int().min(1) };
export const ParagraphRange = z.object({ kind: z.literal('paragraphs'), ...ElementSpan });
export type ParagraphRange = z.infer<typeof ParagraphRange>;
export const ChapterLocation = z.object({ kind: z.literal('chapter'), chapter: z.number().int().min(1), ...ElementSpan });
export type ChapterLocation = z.infer<typeof ChapterLocation>;
export const SlideLocation = z.object({ kind: z.literal('slide'), slide: z.number().int().min(1), ...ElementSpan });
export type SlideLocation = z.infer<typeof SlideLocation>;
export const BlockLocation = z.discriminatedUnion('kind', [LineRange, PageLocation, ParagraphRange, ChapterLocation, SlideLocation]);
export type BlockLocation = z.infer<typeof BlockLocation>;

export const Block = z.object({
  block_id: z.string(),
  block_index: z.number().int().min(0),
  section_path: z.string(),
  text: z.string(),
  token_count: z.number().int().min(0),
  location: BlockLocation,
});
export type Block = z.infer<typeof Block>;

export const Section = z.object({
  path: z.string(),
  title: z.string(),
  /** 1-based position in document (pre-)order. */
  ordinal: z.number().int().min(1),
  /** 1 for a top-level section. */
  depth: z.number().int().min(1),
  parent_path: z.string().nullable(),
  direct_blocks: z.number().int().min(0),
  subtree_blocks: z.number().int().min(0),
  direct_tokens: z.number().int().min(0),
  subtree_tokens: z.number().int().min(0),
  first_sentence: z.string(),
  /** Where the section starts in the source (heading line or outline page), when known. */
  location: BlockLocation.nullable(),
});
export type Section = z.infer<typeof Section>;

/**
 * The format of the parser that read the document (`markdown`, `text`, `pdf`, …): the parser registry
 * (parse/registry.ts) is the only place formats are named, so a format added there needs no edit here.
 */
export const DocumentFormat = z.string().regex(/^[a-z][a-z0-9-]*$/);
export type DocumentFormat = z.infer<typeof DocumentFormat>;

export const Lang = z.enum(['zh', 'en', 'ja', 'mixed', 'und']);
export type Lang = z.infer<typeof Lang>;

/**
 * A page of a PDF whose text is not indexed although it has some (a partial document), and why.
 * `image_only`: its text is only in images (a scan) and OCR did not read it: OCR is off, stopped at the
 * time limit, or failed on it (see `reason`). A flag, not a code of its own, so a DocQA from before OCR
 * still reads the snapshot (unknown fields are dropped; an unknown code would make it unreadable).
 */
export const UnreadPage = z.object({ page: z.number().int().min(1), code: z.enum(['no_text', 'corrupt']), reason: z.string(), image_only: z.literal(true).optional() });
export type UnreadPage = z.infer<typeof UnreadPage>;

export const Document = z.object({
  doc_id: z.string(),
  /** Absolute path of the file this document was read from. */
  path: z.string(),
  title: z.string(),
  /** Authors from the document's own metadata (an e-book's creators); absent when it names none. */
  authors: z.array(z.string()).optional(),
  source_label: z.string(),
  aliases: z.array(z.string()),
  lang: Lang,
  format: DocumentFormat,
  /** sha256 of the file's bytes: the document's content identity. */
  content_hash: z.string(),
  byte_size: z.number().int().min(0),
  /** Encoding the text was decoded from (text formats and web pages), or null (PDF, Word, e-books, slides). */
  encoding: z.string().nullable(),
  page_count: z.number().int().min(1).nullable(),
  /** Pages read without their text (a partial document); absent when every page was read. */
  unread_pages: z.array(UnreadPage).optional(),
  sections: z.array(Section),
  blocks: z.array(Block),
});
export type Document = z.infer<typeof Document>;

export const FailedDocument = z.object({
  path: z.string(),
  stage: z.enum(INGEST_STAGES),
  code: z.enum(INGEST_ERROR_CODES),
  message: z.string(),
  /** Set when the document is indexed without these pages only (a partial document): the rest is in the snapshot. */
  pages: z.array(z.number().int().min(1)).optional(),
});
export type FailedDocument = z.infer<typeof FailedDocument>;

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
