import { isLinkList } from '../blocks/link-list';
import type { Document } from '../model';

/**
 * What the ranking knows of each block besides its scores (blocks numbered globally: documents in order,
 * each one's blocks in order): the section it belongs to, so that one section does not fill the top k,
 * and whether it is a link list (link-list.ts), which ranks below content.
 */
export interface BlockPriors {
  /** A number per block, the same for the blocks of one section of one document. */
  section: Int32Array;
  /** 1 for a link-list block. */
  linkList: Uint8Array;
}

const cache = new WeakMap<readonly Document[], BlockPriors>();

/** The priors of a collection's blocks, worked out once per (immutable) document list. */
export function blockPriors(documents: readonly Document[]): BlockPriors {
  let p = cache.get(documents);
  if (p) return p;
  const n = documents.reduce((sum, d) => sum + d.blocks.length, 0);
  p = { section: new Int32Array(n), linkList: new Uint8Array(n) };
  let g = 0;
  let next = 0;
  for (const d of documents) {
    const ids = new Map<string, number>();
    for (const b of d.blocks) {
      let id = ids.get(b.section_path);
      if (id === undefined) ids.set(b.section_path, (id = next++));
      p.section[g] = id;
      p.linkList[g] = isLinkList(b.text) ? 1 : 0;
      g++;
    }
  }
  cache.set(documents, p);
  return p;
}
