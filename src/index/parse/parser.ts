import type { BlockLocation } from '../../shared/block-location';
import type { DocumentFormat } from '../../shared/document';
import type { ParsedDocument } from '../blocks/parsed-document';
import type { OcrRequest } from './pdf-ocr';

export interface ParseContext {
  /** For messages, and its extension for a format's dialect (.mdx); parsers never touch the file system. */
  path: string;
  signal?: AbortSignal;
  /** Read the pages that are images without text with OCR (ingest.ocr on); absent, they are named as unread. */
  ocr?: OcrRequest;
}

/**
 * A document as DocQA's document view shows it (docs/document-view.md): HTML of one or more
 * `<section data-docqa-part="N">` (N: the chapter or slide; 1 for a whole document) whose content
 * elements carry `data-docqa-el` numbers, made by the same walk that located the blocks. The view
 * sanitises it again before showing it.
 */
export interface RenderedDocument {
  html: string;
  /** Parts of the document (an e-book's chapters, a deck's slides; 1 otherwise), whether or not `html` holds them all. */
  parts: number;
}

/** One module per format behind this interface; the registry picks one by file extension. */
export interface DocumentParser {
  readonly format: DocumentFormat;
  readonly extensions: readonly string[];
  parse(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument>;
  /** The rendered formats (Word, web pages, e-books, slides): the view of the part `at` is in (its registry entry reduces it to the view's allowlist). */
  render?(bytes: Uint8Array, ctx: ParseContext, at: BlockLocation): Promise<RenderedDocument>;
}
