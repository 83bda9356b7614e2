import { z } from 'zod';
import { MAX_PAGE_REGIONS, PageRegion } from './block-location';

/**
 * The messages between the extension host and DocQA's read-only PDF page view (webview/pdf/), one
 * discriminated union per direction. Both sides validate on arrival and drop what does not parse; the
 * host posts nothing before the view's `ready` (and answers a second `ready`, after a reload, again).
 */

/** What the host refuses to read into a webview (the bytes travel in one message). */
export const PDF_VIEW_MAX_BYTES = 64 * 1024 * 1024;
/** A block is a few hundred tokens; anything far longer is not a block's text. */
const MAX_HIGHLIGHT_CHARS = 20_000;

const Page = z.number().int().min(1);
const Highlight = z.string().max(MAX_HIGHLIGHT_CHARS);
/** The block's regions on a scanned page (PageLocation's `boxes`): highlighted instead of text, which such a page has none of. */
const Regions = z.array(PageRegion).max(MAX_PAGE_REGIONS);
// VS Code delivers a posted Uint8Array as a Uint8Array (its buffers are transferred, not JSON-encoded).
const Bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'not bytes').refine((b) => b.byteLength > 0 && b.byteLength <= PDF_VIEW_MAX_BYTES, 'empty or too large');

export const PdfHostToView = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('open'),
    /** Shown in the toolbar; the file's name, never used as markup. */
    name: z.string().max(1000),
    data: Bytes,
    page: Page,
    highlight: Highlight,
    boxes: Regions.optional(),
    ui_lang: z.enum(['en', 'zh']),
    /** Webview URIs of the shipped dist/pdfjs/cmaps/ and standard_fonts/, each ending in '/'. */
    cmap_url: z.string().endsWith('/'),
    standard_font_url: z.string().endsWith('/'),
  }),
  /** The same file again (a second citation into it): another page and block, no bytes re-sent. */
  z.object({ type: z.literal('goto'), page: Page, highlight: Highlight, boxes: Regions.optional() }),
]);
export type PdfHostToView = z.infer<typeof PdfHostToView>;

export const PdfMatchKind = z.enum(['exact', 'approximate', 'none']);
export type PdfMatchKind = z.infer<typeof PdfMatchKind>;

export const PdfViewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** A page is on screen (after open, goto or the user's navigation): the host retitles the panel. */
  z.object({ type: z.literal('shown'), page: Page, page_count: Page, match: PdfMatchKind.nullable() }),
  /** The PDF could not be opened or a page not rendered; one sentence, shown to the user by the host. */
  z.object({ type: z.literal('failed'), message: z.string().max(2000) }),
]);
export type PdfViewToHost = z.infer<typeof PdfViewToHost>;

/** The arguments of the `docqa.openPdfPage` command (the chat host and the tests call it). */
export const OpenPdfPageArgs = z.object({
  path: z.string().min(1),
  page: Page,
  highlight: Highlight.default(''),
  boxes: Regions.optional(),
  title: z.string().max(1000).optional(),
});
export type OpenPdfPageArgs = z.input<typeof OpenPdfPageArgs>;
