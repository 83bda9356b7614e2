import { RowReader, type Segment } from './cache-segment';

/** Rows per piece of a merged segment's vector block: 4 MB at 1,024 dimensions. */
const PIECE_ROWS = 1024;

/**
 * The vector block of the segments `victims` merged, in the merged `order`, as pieces of one reused
 * buffer: a merge never holds the merged block, nor a whole source it has not read already. Each
 * source's rows come from the vectors this cache instance still holds, the block it read, or the file
 * a window at a time (a source's rows are taken in ascending order, as its keys are sorted).
 */
export async function* mergedVectors(dims: number, victims: readonly Segment[], order: { source: Uint32Array; row: Uint32Array }): AsyncGenerator<Uint8Array> {
  const readers = victims.map((seg) => (seg.held || seg.vectors ? null : new RowReader(seg, dims)));
  const piece = new Float32Array(Math.max(1, Math.min(PIECE_ROWS, order.source.length)) * dims);
  try {
    let n = 0;
    for (let i = 0; i < order.source.length; i++) {
      const s = order.source[i]!;
      const r = order.row[i]!;
      const seg = victims[s]!;
      const reader = readers[s];
      if (reader && !reader.has(r)) await reader.load(r);
      piece.set(seg.held ? seg.held[r]! : seg.vectors ? seg.vectors.subarray(r * dims, (r + 1) * dims) : reader!.at(r), n * dims);
      if (++n * dims === piece.length) {
        yield new Uint8Array(piece.buffer, 0, piece.byteLength);
        n = 0;
      }
    }
    if (n > 0) yield new Uint8Array(piece.buffer, 0, n * dims * 4);
  } finally {
    for (const reader of readers) await reader?.close();
  }
}

/** The vectors of the merged segment by row, when every source's are held (else undefined). */
export function heldAfterMerge(victims: readonly Segment[], order: { source: Uint32Array; row: Uint32Array }): Float32Array[] | undefined {
  if (!victims.every((seg) => seg.held)) return undefined;
  return Array.from(order.source, (s, i) => victims[s]!.held![order.row[i]!]!);
}
