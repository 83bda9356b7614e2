import { z } from 'zod';
import { BlockLocation } from './block-location';

/**
 * A document as the index models it (src/index builds it; the inspect panel shows it): its metadata,
 * its outline and its blocks, each with where it sits in the source.
 */
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
