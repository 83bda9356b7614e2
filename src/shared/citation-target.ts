import { z } from 'zod';
import { BlockLocation } from './block-location';

/**
 * The argument of `docqa.openCitation`, the one command that opens a cited block at its spot, whatever
 * the format (docs/document-view.md): lines in the editor, a PDF page in the PDF page view, a Word
 * paragraph, an e-book chapter position, a web page's section or a slide in the document view. The chat
 * panel, the trace viewer and the inspect panel call it; `@docqa` will too. Either a citation — a ref
 * `doc_id#block_id` or its two halves, with the snapshot the answer was made from when known — which
 * the host looks up in the index, or a location already looked up.
 */
const MAX_TEXT = 20_000;

export const CitationRef = z.union([
  z.object({ ref: z.string().regex(/^[^#\s]+#[^#\s]+$/), snapshot_id: z.string().optional() }),
  z.object({ doc_id: z.string().min(1), block_id: z.string().min(1), snapshot_id: z.string().optional() }),
]);
export type CitationRef = z.infer<typeof CitationRef>;

export const CitationLocation = z.object({
  path: z.string().min(1),
  location: BlockLocation,
  /** The block's text: highlighted, and checked against what the file holds now. */
  text: z.string().max(MAX_TEXT).default(''),
  /** The document's title, for the view's tab. */
  title: z.string().max(1000).optional(),
  /** The content hash of the bytes the block was read from: the view says when the file changed since. */
  content_hash: z.string().optional(),
});
export type CitationLocation = z.infer<typeof CitationLocation>;

export const OpenCitationArgs = z.union([CitationLocation, CitationRef]);
export type OpenCitationArgs = z.input<typeof OpenCitationArgs>;

/** A ref's two halves. */
export function refParts(r: CitationRef): { doc_id: string; block_id: string; snapshot_id?: string } {
  if ('ref' in r) {
    const [doc_id, block_id] = r.ref.split('#') as [string, string];
    return { doc_id, block_id, ...(r.snapshot_id ? { snapshot_id: r.snapshot_id } : {}) };
  }
  return r;
}
