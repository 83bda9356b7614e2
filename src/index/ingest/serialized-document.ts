import type { Document, UnreadPage } from '../../shared/document';
import type { IngestOutcome, UnchangedFile } from './ingest-file';

/** What a build keeps in memory of a parsed document set aside on disk (the doc_id comes once the registry has seen every file). */
export interface DocumentHead {
  doc_id: string;
  path: string;
  content_hash: string;
  byte_size: number;
  source_label: string;
  blocks: number;
  tokens: number;
  /** Pages it was indexed without (a partial document), as the document says. */
  unread_pages?: UnreadPage[];
}

/**
 * A parsed document as an ingestion worker hands it to a build: its head and its JSON line (UTF-8, with
 * the newline), the document spool's record as it is written. The worker serialises it and transfers the
 * bytes, so the host thread never builds the document's objects only to write them out again: received
 * as objects, the documents of a 100k-block build kept the host's heap 60–70 MB above its floor through
 * the whole ingestion (garbage awaiting the collector).
 */
export interface SerializedDocument {
  head: DocumentHead;
  json: Uint8Array<ArrayBuffer>;
  /**
   * Hands the bytes back to the worker that wrote them, for its next document (set by the pool on the
   * host's side). Called once they are written: `json` is unusable after. A buffer left to the
   * collector waits for it: in the host, whose heap hardly grows, 60 MB of them did.
   */
  release?: () => void;
}

export function headOf(doc: Document): DocumentHead {
  return {
    doc_id: doc.doc_id,
    path: doc.path,
    content_hash: doc.content_hash,
    byte_size: doc.byte_size,
    source_label: doc.source_label,
    blocks: doc.blocks.length,
    tokens: doc.blocks.reduce((n, b) => n + b.token_count, 0),
    ...(doc.unread_pages ? { unread_pages: doc.unread_pages } : {}),
  };
}

const utf8 = new TextEncoder();

/** Buffers handed back a worker keeps for its next documents (more would only wait). */
const SPARES = 4;

/**
 * Buffers a worker's serialised documents were written into, given back by the host (see release):
 * each document goes into the largest when it fits, else into a new buffer of its exact size.
 */
export class SpareBuffers {
  private readonly spares: ArrayBuffer[] = [];

  /** A buffer given back: kept, the smallest dropped when there are too many. */
  give(buf: ArrayBuffer): void {
    this.spares.push(buf);
    this.spares.sort((a, b) => b.byteLength - a.byteLength);
    if (this.spares.length > SPARES) this.spares.pop();
  }

  /** `text` as UTF-8, in the largest spare buffer when it fits there. */
  encode(text: string): Uint8Array<ArrayBuffer> {
    const spare = this.spares[0];
    if (spare && spare.byteLength >= text.length) {
      const out = new Uint8Array(spare);
      const r = utf8.encodeInto(text, out);
      if (r.read === text.length) {
        this.spares.shift();
        return out.subarray(0, r.written);
      }
    }
    return utf8.encode(text);
  }

  get size(): number {
    return this.spares.length;
  }
}

/** The document's head and JSON line, in a buffer of its own (transferable; a spare one when given). */
export function serializeDocument(doc: Document, spares?: SpareBuffers): SerializedDocument {
  const line = `${JSON.stringify(doc)}\n`;
  return { head: headOf(doc), json: spares ? spares.encode(line) : utf8.encode(line) };
}

/** What the pool answers for a file (ingest-pool.ts's ScanOutcome, named here without importing the pool). */
type ScanOutcome = IngestOutcome | UnchangedFile;

/** A scan whose document comes serialised: what a build spools. */
export type SerializedScan = { ok: true; serialized: SerializedDocument; mtime_ms?: number } | Exclude<ScanOutcome, { ok: true }>;

/** The serialised form of a scan's outcome (the document's JSON line instead of its objects). */
export function serializedScan(o: ScanOutcome, spares?: SpareBuffers): SerializedScan {
  return o.ok === true ? { ok: true, serialized: serializeDocument(o.document, spares), ...(o.mtime_ms !== undefined ? { mtime_ms: o.mtime_ms } : {}) } : o;
}

/** The serialised document an outcome carries (its bytes move between threads, and back once written), or null. */
export function serializedOf(o: ScanOutcome | SerializedScan): SerializedDocument | null {
  return o.ok === true && 'serialized' in o ? o.serialized : null;
}
