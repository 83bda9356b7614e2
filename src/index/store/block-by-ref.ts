import type { Block, Document } from '../../shared/document';
import type { LoadedSnapshot } from './snapshot-store';

/**
 * A loaded snapshot's documents by doc_id and blocks by ref, found through the document and remembered.
 * Loaded documents make their blocks when first read: a map of every block's ref, made on the first
 * tool call, made all of a million blocks' objects (and decoded their texts) for the few a payload shows.
 */

const byDocId = new WeakMap<Pick<LoadedSnapshot, 'documents'>, Map<string, number>>();
const byBlockId = new WeakMap<Document, Map<string, number>>();

/** Document index by doc_id (made once per snapshot: snapshots are immutable). */
export function docIndex(snapshot: Pick<LoadedSnapshot, 'documents'>): Map<string, number> {
  let m = byDocId.get(snapshot);
  if (!m) byDocId.set(snapshot, (m = new Map(snapshot.documents.map((d, i) => [d.doc_id, i]))));
  return m;
}

/** The block `block_id` of a document (its blocks made, if not yet, and indexed by id once). */
export function blockOf(doc: Document, blockId: string): Block | undefined {
  let m = byBlockId.get(doc);
  if (!m) byBlockId.set(doc, (m = new Map(doc.blocks.map((b, i) => [b.block_id, i]))));
  const i = m.get(blockId);
  return i === undefined ? undefined : doc.blocks[i];
}

/**
 * `make` of the block a ref names, per snapshot, worked out when first asked for and then kept (null: no
 * such block): what a payload adds to its blocks (token counts, spots) costs only the blocks it shows.
 */
export function byRef<T>(make: (doc: Document, block: Block) => T): (snapshot: Pick<LoadedSnapshot, 'documents'>, ref: string) => T | null {
  const cache = new WeakMap<Pick<LoadedSnapshot, 'documents'>, Map<string, T | null>>();
  return (snapshot, ref) => {
    let m = cache.get(snapshot);
    if (!m) cache.set(snapshot, (m = new Map()));
    let v = m.get(ref);
    if (v === undefined) {
      const found = blockByRef(snapshot, ref);
      v = found ? make(found.doc, found.block) : null;
      m.set(ref, v);
    }
    return v;
  };
}

/** The document and block a ref (`doc_id#block_id`) names, or null. Neither id holds a '#' (d + hex, b + hex with -n for repeats). */
export function blockByRef(snapshot: Pick<LoadedSnapshot, 'documents'>, ref: string): { doc: Document; block: Block } | null {
  const hash = ref.indexOf('#');
  const di = hash > 0 ? docIndex(snapshot).get(ref.slice(0, hash)) : undefined;
  if (di === undefined) return null;
  const doc = snapshot.documents[di]!;
  const block = blockOf(doc, ref.slice(hash + 1));
  return block ? { doc, block } : null;
}
