import { z } from 'zod';

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
