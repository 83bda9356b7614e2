import type { BlockLocation } from '../../shared/block-location';
import type { DocumentFormat, UnreadPage } from '../../shared/document';

/** A heading or outline entry as a parser found it; the section tree gives it a unique path. */
export interface SectionDraft {
  title: string;
  /** Index of the parent draft, or null for a top-level section. Drafts are in document pre-order. */
  parent: number | null;
  location: BlockLocation | null;
}

export type UnitKind = 'prose' | 'code' | 'list' | 'table' | 'quote';

/**
 * One paragraph-level piece of content (paragraph, list, code block, table, block quote) inside one
 * section. For line locations, `text` holds exactly the source lines line_start..line_end joined by
 * '\n' (less the payloads of inline data URIs, which hold no line breaks; see data-uri.ts), so a split of
 * the text maps back to exact lines.
 */
export interface Unit {
  section: number;
  kind: UnitKind;
  text: string;
  location: BlockLocation;
}

export interface ParsedDocument {
  format: DocumentFormat;
  /** Title the document gives itself (front matter, first heading, PDF metadata), if any. */
  title: string | null;
  /** Authors the document names in its metadata (an e-book's creators); absent when it names none. */
  authors?: string[];
  sections: SectionDraft[];
  units: Unit[];
  encoding: string | null;
  pageCount: number | null;
  /** Pages whose text could not be read, while the others were (a PDF read in part). */
  unreadPages?: UnreadPage[];
}

/** Title used for the single root section of a document without headings, and for text before the first heading. */
export const PREAMBLE_TITLE = '(preamble)';
