import { z } from 'zod';

/**
 * The messages between the extension host and DocQA's read-only document view (webview/document/): the
 * rendered formats (Word, web pages, e-books, slides) shown as the parser read them, the cited block
 * highlighted. One discriminated union per direction; both sides validate on arrival and drop what does
 * not parse; the host posts nothing before `ready`.
 */

/** A rendered chapter or document far beyond this is not shown (it travels in one message). */
export const DOCUMENT_VIEW_MAX_HTML = 32 * 1024 * 1024;

const Index = z.number().int().min(1);

export const DocumentTarget = z.object({
  /** The location's kind: a whole document's paragraphs, an e-book's chapter, a slide. */
  kind: z.enum(['paragraphs', 'chapter', 'slide']),
  /** The part (chapter, slide; 1 for a whole document) and its elements first..last, as the block's location names them. */
  part: Index,
  first: Index,
  last: Index,
  /** The block's text as indexed: the view checks the elements still hold it, and finds it if they moved. */
  text: z.string().max(20_000),
  /** "slide 4 ¶ 2", for the status line. */
  label: z.string().max(200),
});
export type DocumentTarget = z.infer<typeof DocumentTarget>;

export const DocumentHostToView = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('open'),
    /** The file's name and the document's title: set as text, never as markup. */
    name: z.string().max(1000),
    title: z.string().max(1000),
    /** The rendered HTML (sanitised again by the view, which drops anything but text structure). */
    html: z.string().max(DOCUMENT_VIEW_MAX_HTML),
    /** How many parts the document has; the html may hold only the target's (an e-book chapter). */
    parts: Index,
    target: DocumentTarget,
    /** The file changed since it was indexed: the view says the highlight may be off. */
    changed: z.boolean(),
    ui_lang: z.enum(['en', 'zh']),
  }),
]);
export type DocumentHostToView = z.infer<typeof DocumentHostToView>;

export const DocumentMatchKind = z.enum(['exact', 'moved', 'none']);
export type DocumentMatchKind = z.infer<typeof DocumentMatchKind>;

export const DocumentViewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** The target is on screen: which elements were highlighted and how they were found. */
  z.object({ type: z.literal('shown'), part: Index, first: z.number().int().min(0), last: z.number().int().min(0), match: DocumentMatchKind }),
]);
export type DocumentViewToHost = z.infer<typeof DocumentViewToHost>;
