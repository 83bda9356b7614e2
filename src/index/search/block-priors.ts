import { isLinkList } from '../blocks/link-list';
import type { Document } from '../../shared/document';

/**
 * What the ranking knows of a block besides its scores (blocks numbered globally: documents in order,
 * each one's blocks in order): the section it belongs to, so that one section does not fill the top k,
 * and whether it is a link list (link-list.ts), which ranks below content. Worked out for the few
 * candidates a query ranks, when first asked, never for the whole collection: a snapshot of a million
 * blocks pays nothing at load or at its first search.
 */
export interface BlockPriors {
  /** A key the blocks of one section of one document share. */
  section(block: number): string;
  linkList(block: number): boolean;
}

const cache = new WeakMap<readonly Document[], BlockPriors>();

/** [document, block within it] of a global block number: a binary search over the documents' ranges. */
export function locateBlock(docRanges: ReadonlyArray<readonly [number, number]>, block: number): [number, number] {
  let lo = 0;
  let hi = docRanges.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (docRanges[mid]![0] <= block) lo = mid;
    else hi = mid - 1;
  }
  return [lo, block - docRanges[lo]![0]];
}

/**
 * The priors of a collection's blocks (one object per immutable document list, its answers remembered).
 * `docRanges`: each document's global block range, as a loaded snapshot has them: a loaded document
 * makes its blocks when first read, and counting them here made every block of the collection on its
 * first search.
 */
export function blockPriors(documents: readonly Document[], docRanges: ReadonlyArray<readonly [number, number]>): BlockPriors {
  let p = cache.get(documents);
  if (p) return p;
  const locate = (block: number) => locateBlock(docRanges, block);
  // 0: not worked out yet, 1: content, 2: a link list.
  let links: Uint8Array | null = null;
  p = {
    section(block) {
      const [d, b] = locate(block);
      return `${d}\u0000${documents[d]!.blocks[b]!.section_path}`;
    },
    linkList(block) {
      links ??= new Uint8Array(docRanges.at(-1)?.[1] ?? 0);
      if (links[block] === 0) {
        const [d, b] = locate(block);
        links[block] = isLinkList(documents[d]!.blocks[b]!.text) ? 2 : 1;
      }
      return links[block] === 2;
    },
  };
  cache.set(documents, p);
  return p;
}
