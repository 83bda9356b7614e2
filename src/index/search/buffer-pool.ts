/**
 * Where the arrays an index hands out get their memory: an ArrayBuffer of at least `bytes` bytes, its
 * contents anything (every element is written).
 */
export type TakeBuffer = (bytes: number) => ArrayBuffer;
export const freshBuffer: TakeBuffer = (bytes) => new ArrayBuffer(bytes);

/**
 * ArrayBuffers given back to be used again: a keyword-index worker cuts each batch's arrays from the
 * buffers the host returned once it had written the batch before. Fresh arrays for every batch (about
 * 2 KB a block) were freed on the host whenever its collector got to them, into the worker's malloc
 * arena, which glibc does not give back while its free space is scattered: that arena grew to 58 MB
 * (35 MB of it free) in a 100k-block build of 4,096-block batches, 31 MB (3 free) with the buffers reused.
 */
export class BufferPool {
  private readonly spare: ArrayBuffer[] = [];

  /** `keep`: buffers held at most (the oldest go first). */
  constructor(private readonly keep = 16) {}

  give(buffers: readonly ArrayBuffer[]): void {
    for (const b of buffers) if (b.byteLength > 0) this.spare.push(b);
    if (this.spare.length > this.keep) this.spare.splice(0, this.spare.length - this.keep);
  }

  /**
   * A buffer of at least `bytes` bytes: the smallest spare one that fits, or a fresh one with a quarter
   * more room (a batch's arrays vary by some tenths from batch to batch). Its contents are anything.
   */
  readonly take: TakeBuffer = (bytes) => {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++) {
      const n = this.spare[i]!.byteLength;
      if (n >= bytes && (best < 0 || n < this.spare[best]!.byteLength)) best = i;
    }
    if (best >= 0) return this.spare.splice(best, 1)[0]!;
    return new ArrayBuffer(bytes === 0 ? 0 : Math.ceil((bytes * 1.25) / 4096) * 4096);
  };

  /** Buffers held now. */
  get size(): number {
    return this.spare.length;
  }
}
