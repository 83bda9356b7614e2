import { pathToFileURL } from 'node:url';
import type { BlockLocation } from '../shared/block-location';
import { locationLabel } from '../shared/location-label';
import { byRef, docIndex } from '../index/store/block-by-ref';
import type { LoadedSnapshot } from '../index/store/snapshot-store';

/** Where a block sits, for a reader outside DocQA that wants to show or open it. */
export interface BlockSpot {
  /** The source file the block was read from (absolute). */
  path: string;
  /** Its place in the file: a line range, a PDF page, or rendered elements (paragraphs, a chapter's, a slide's). */
  location: BlockLocation;
  /** The place in a few words: "lines 3-5", "page 2", "slide 4 ¶ 1-3". */
  location_label: string;
  /** A file:// link to the spot: `#L3-L5` for lines, `#page=2` for a PDF page (the PDF open parameter), the file alone otherwise. */
  link: string;
}

/** The file link with the fragment a viewer understands for this kind of place. */
export function spotLink(file: string, l: BlockLocation): string {
  const url = pathToFileURL(file).href;
  if (l.kind === 'lines') return `${url}#L${l.line_start}${l.line_end !== l.line_start ? `-L${l.line_end}` : ''}`;
  if (l.kind === 'page') return `${url}#page=${l.page}`;
  return url;
}

/** A scanned page's line regions are for DocQA's page view, not for a tool's reader (the model, an MCP client): the page says where. */
function withoutRegions(l: BlockLocation): BlockLocation {
  return l.kind === 'page' && l.boxes ? { kind: 'page', page: l.page } : l;
}

/** The spot of the block a ref names (null: none), made when first asked for, then kept. */
const spotOf = byRef((doc, b): BlockSpot => ({ path: doc.path, location: withoutRegions(b.location), location_label: locationLabel(b.location), link: spotLink(doc.path, b.location) }));

/**
 * A tool payload with the spots added: each block item (an array item with a `ref`) gets its file path,
 * location, label and link; each document item (with a `doc_id`, no `ref`) its file path. The contract's
 * own fields are kept as they are, in their order; the payload is not changed in place.
 */
export function withSpots(payload: Record<string, unknown>, s: LoadedSnapshot): Record<string, unknown> {
  const paths = docIndex(s);
  const item = (v: unknown): unknown => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    if (typeof o.ref === 'string') {
      const spot = spotOf(s, o.ref);
      return spot ? { ...o, ...spot } : o;
    }
    if (typeof o.doc_id === 'string') {
      const di = paths.get(o.doc_id);
      return di === undefined ? o : { ...o, path: s.documents[di]!.path };
    }
    return o;
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) out[k] = Array.isArray(v) ? v.map(item) : v;
  return out;
}
