/**
 * A cache segment's block of sorted 32-byte keys, searched in plain JavaScript: each key's first four
 * bytes as a number (big-endian, so numeric order is the block's byte order) narrow the search, and
 * only a key whose prefix matches is compared in full. A `Buffer.compare` per probe cost 3.4 s of a
 * 5 s 100k-vector build (a native call each, 17 probes per key per segment); this costs ~0.1 s.
 */
export const KEY_BYTES = 32;

/** The first four bytes of the key at byte `at` of `bytes`, as an unsigned number. */
export function prefixAt(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** Whether the keys at `a` of `x` and `b` of `y` are equal past their first four bytes. */
function sameTail(x: Uint8Array, a: number, y: Uint8Array, b: number): boolean {
  for (let i = 4; i < KEY_BYTES; i++) if (x[a + i] !== y[b + i]) return false;
  return true;
}

/** Byte order of the keys at `a` of `x` and `b` of `y` (negative, 0, positive). */
export function compareKeys(x: Uint8Array, a: number, y: Uint8Array, b: number): number {
  for (let i = 0; i < KEY_BYTES; i++) {
    const d = x[a + i]! - y[b + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

export class SortedKeys {
  /** Each key's first four bytes, in key order. */
  readonly prefixes: Uint32Array;

  /** `bytes` holds `count` keys of 32 bytes, sorted bytewise. */
  constructor(
    readonly bytes: Uint8Array,
    readonly count: number,
  ) {
    this.prefixes = new Uint32Array(count);
    for (let i = 0; i < count; i++) this.prefixes[i] = prefixAt(bytes, i * KEY_BYTES);
  }

  /** Index of the 32-byte `key` (at byte `at` of its buffer), or -1. */
  indexOf(key: Uint8Array, at = 0): number {
    const p = prefixAt(key, at);
    const prefixes = this.prefixes;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (prefixes[mid]! < p) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.count && prefixes[i] === p; i++) if (sameTail(this.bytes, i * KEY_BYTES, key, at)) return i;
    return -1;
  }

  /** The key at `i` as lower-case hex. */
  hexAt(i: number): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + i * KEY_BYTES, KEY_BYTES).toString('hex');
  }
}

/**
 * The merged order of several sorted key blocks without duplicates: for each output key, which block
 * (`source`) and which row of it. On a key held by several blocks the earliest block's row is kept.
 */
export function mergeOrder(blocks: readonly SortedKeys[]): { source: Uint32Array; row: Uint32Array } {
  const total = blocks.reduce((n, b) => n + b.count, 0);
  const src = new Uint32Array(total);
  const rows = new Uint32Array(total);
  const pre = new Uint32Array(total);
  let n = 0;
  blocks.forEach((b, s) => {
    src.fill(s, n, n + b.count);
    for (let r = 0; r < b.count; r++) rows[n + r] = r;
    pre.set(b.prefixes, n);
    n += b.count;
  });
  const order = Array.from({ length: total }, (_, i) => i);
  // Prefixes decide almost every comparison; equal ones fall back to the bytes, then to the block.
  order.sort((i, j) => {
    if (pre[i] !== pre[j]) return pre[i]! < pre[j]! ? -1 : 1;
    return compareKeys(blocks[src[i]!]!.bytes, rows[i]! * KEY_BYTES, blocks[src[j]!]!.bytes, rows[j]! * KEY_BYTES) || src[i]! - src[j]! || rows[i]! - rows[j]!;
  });
  const source = new Uint32Array(total);
  const row = new Uint32Array(total);
  let out = 0;
  for (const i of order) {
    if (out > 0) {
      const ps = source[out - 1]!;
      const pr = row[out - 1]!;
      if (pre[i] === blocks[ps]!.prefixes[pr] && compareKeys(blocks[src[i]!]!.bytes, rows[i]! * KEY_BYTES, blocks[ps]!.bytes, pr * KEY_BYTES) === 0) continue;
    }
    source[out] = src[i]!;
    row[out] = rows[i]!;
    out++;
  }
  return { source: source.subarray(0, out), row: row.subarray(0, out) };
}
