/**
 * Per-row symmetric int8 quantisation of the vector matrix (a quarter of float32), the form the vector
 * side scans; the float32 rows stay on disk for the exact rescoring of the best candidates
 * (quantized-vectors.ts). Row r is stored as codes c[j] = round(x[j] · 127 / max|x|) and one scale
 * max|x| / 127 (float32), so c[j] · scale ≈ x[j] to within half a step of that row's own range.
 */

/** Largest code magnitude. */
export const CODE_MAX = 127;

/** Quantises `rows` (n × dims float32) into `codes` (n × dims) and `scales` (n); every output element is written. */
export function quantizeRows(rows: Float32Array, dims: number, codes: Int8Array, scales: Float32Array): void {
  const n = rows.length / dims;
  if (codes.length !== rows.length || scales.length !== n) throw new Error(`internal: quantising ${n} rows into ${codes.length / dims} codes and ${scales.length} scales`);
  for (let r = 0, off = 0; r < n; r++, off += dims) {
    let max = 0;
    for (let j = 0; j < dims; j++) {
      const a = Math.abs(rows[off + j]!);
      if (a > max) max = a;
    }
    scales[r] = max / CODE_MAX;
    const inv = max > 0 ? CODE_MAX / max : 0;
    for (let j = 0; j < dims; j++) codes[off + j] = Math.round(rows[off + j]! * inv);
  }
}

/**
 * The largest query code for `dims`: an int8 row times an int16 query is summed in int32, so the query
 * is scaled to at most (2^31 − 1) / (127 · dims), and to the int16 range, so no sum can overflow
 * (1,024 dimensions: 16,513, about fourteen bits).
 */
export function queryCodeMax(dims: number): number {
  return Math.min(32767, Math.floor(0x7fffffff / (CODE_MAX * dims)));
}

/** The query (already normalised) as int16 codes in `out`, and the scale that turns a code back into its value. */
export function quantizeQuery(query: Float32Array, out: Int16Array): number {
  let max = 0;
  for (let j = 0; j < query.length; j++) {
    const a = Math.abs(query[j]!);
    if (a > max) max = a;
  }
  const top = queryCodeMax(query.length);
  const inv = max > 0 ? top / max : 0;
  for (let j = 0; j < query.length; j++) out[j] = Math.round(query[j]! * inv);
  return max / top;
}
