/**
 * Indices of the top `k` scores, best first; ties go to the lower index (document, then block order).
 * One pass keeping a small sorted buffer: no sort of all n scores. Scanning in index order and admitting
 * only strictly better scores once the buffer is full is what gives ties to the lower index.
 */
export function topK(scores: Float64Array, k: number, minExclusive = -Infinity): number[] {
  const best: number[] = [];
  if (k <= 0) return best;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (!(s > minExclusive)) continue;
    if (best.length === k) {
      if (!(s > scores[best[k - 1]!]!)) continue;
      best.pop();
    }
    let p = best.length;
    while (p > 0 && s > scores[best[p - 1]!]!) p--;
    best.splice(p, 0, i);
  }
  return best;
}
