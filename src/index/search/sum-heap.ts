/**
 * The accumulator's sums as the keyword top k reads them (bm25-topk.ts): a block's sum is acc[block],
 * the blocks are a list of them (the touched ones, or candidates).
 */

/** The k-th largest sum among the first n of `blocks` (a min-heap of k); 0 when n < k. */
export function kthLargest(acc: Float32Array, blocks: Int32Array, n: number, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const v = acc[blocks[i]!]!;
    if (size < k) {
      let j = size++;
      while (j > 0 && heap[(j - 1) >> 1]! > v) {
        heap[j] = heap[(j - 1) >> 1]!;
        j = (j - 1) >> 1;
      }
      heap[j] = v;
    } else if (v > heap[0]!) replaceMin(heap, k, v);
  }
  return size < k ? 0 : heap[0]!;
}

/**
 * Of the first n of `blocks`, moves those whose sum is at least `bar` to the front, in place (swapped:
 * the first n stay the same blocks in another order); their count.
 */
export function gather(acc: Float32Array, blocks: Int32Array, n: number, bar: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) {
    const b = blocks[i]!;
    if (acc[b]! >= bar) {
      blocks[i] = blocks[count]!;
      blocks[count++] = b;
    }
  }
  return count;
}

/** Puts `v` in place of the smallest of a full min-heap of k values, sifting it down. */
function replaceMin(heap: Float64Array, k: number, v: number): void {
  let j = 0;
  for (;;) {
    const l = 2 * j + 1;
    if (l >= k) break;
    const c = l + 1 < k && heap[l + 1]! < heap[l]! ? l + 1 : l;
    if (heap[c]! >= v) break;
    heap[j] = heap[c]!;
    j = c;
  }
  heap[j] = v;
}
