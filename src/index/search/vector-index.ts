import { DotKernel } from './dot-kernel';
import type { RankedBlock, VectorSide } from './search-sides';
import { topK } from './top-k';

/**
 * Exact vector search: one Float32Array of n × dims, rows L2-normalised at build, scanned with a plain dot
 * product (WebAssembly SIMD when the matrix lives in the kernel's memory, the same sums in JavaScript
 * otherwise). Brute force is exact, deterministic and, at the sizes a learner's notes reach, close to the
 * memory bandwidth floor (see bench).
 */
export function normalizeRows(matrix: Float32Array, dims: number): void {
  for (let off = 0; off < matrix.length; off += dims) {
    let s = 0;
    for (let j = 0; j < dims; j++) s += matrix[off + j]! * matrix[off + j]!;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let j = 0; j < dims; j++) matrix[off + j]! *= inv;
  }
}

/**
 * The exact dot product of the row at `off` with `q`. Four independent accumulators let the CPU overlap
 * the multiply-adds (about twice as fast as one running sum in V8); the remainder goes into the first.
 * The SIMD kernel's `dot` adds in exactly this order, so both give the same bits, and so does the exact
 * rescoring of the quantised search (quantized-vectors.ts).
 */
export function exactDot(matrix: Float32Array, off: number, q: Float32Array, dims: number): number {
  const tail = dims - (dims % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let j = 0; j < tail; j += 4) {
    s0 += matrix[off + j]! * q[j]!;
    s1 += matrix[off + j + 1]! * q[j + 1]!;
    s2 += matrix[off + j + 2]! * q[j + 2]!;
    s3 += matrix[off + j + 3]! * q[j + 3]!;
  }
  for (let j = tail; j < dims; j++) s0 += matrix[off + j]! * q[j]!;
  return s0 + s1 + s2 + s3;
}

/** The query as the index scores it: a float32 copy, L2-normalised. */
export function normalizedQuery(query: Float32Array, dims: number): Float32Array {
  if (query.length !== dims) throw new Error(`query vector has ${query.length} dimensions, the index ${dims}`);
  const q = Float32Array.from(query);
  normalizeRows(q, dims);
  return q;
}

export class VectorIndex implements VectorSide {
  constructor(
    readonly matrix: Float32Array,
    readonly dims: number,
    /** Scores `matrix` with WebAssembly SIMD when the matrix lives in its memory (see DotKernel). */
    private readonly kernel: DotKernel | null = null,
  ) {
    if (dims <= 0 || matrix.length % dims !== 0) throw new Error(`vector matrix of ${matrix.length} floats is not a multiple of ${dims}`);
    if (kernel && kernel.matrix !== matrix) throw new Error('the kernel scores another matrix');
  }

  /**
   * An index of `rows` × `dims` whose `matrix` the caller fills: in a WebAssembly memory scored by the
   * SIMD kernel when it fits there (up to 4 GiB), else in an ordinary uninitialised buffer.
   */
  static allocate(rows: number, dims: number): VectorIndex {
    const kernel = DotKernel.allocate(rows, dims);
    if (kernel) return new VectorIndex(kernel.matrix, dims, kernel);
    const bytes = Buffer.allocUnsafeSlow(rows * dims * 4);
    return new VectorIndex(new Float32Array(bytes.buffer, bytes.byteOffset, rows * dims), dims);
  }

  /** Bytes held in WebAssembly memory, which process.memoryUsage() does not count. */
  get wasmBytes(): number {
    return this.kernel?.memoryBytes ?? 0;
  }

  get size(): number {
    return this.matrix.length / this.dims;
  }

  /** The `k` rows of highest cosine with the query (ties to the lower row). */
  search(query: Float32Array, k: number, allowed?: (row: number) => boolean): RankedBlock[] {
    const cos = this.score(query, allowed);
    return topK(cos, k).map((block) => ({ block, score: cos[block]! }));
  }

  /** Cosine similarity of every row with the query; `allowed` limits the rows computed (others are -Infinity). */
  score(query: Float32Array, allowed?: (row: number) => boolean): Float64Array {
    const { matrix, dims } = this;
    const q = Float32Array.from(query);
    normalizeRows(q, dims);
    if (this.kernel) return this.kernel.score(q, allowed);
    const n = this.size;
    const out = new Float64Array(n);
    for (let r = 0; r < n; r++) out[r] = allowed && !allowed(r) ? -Infinity : exactDot(matrix, r * dims, q, dims);
    return out;
  }
}
