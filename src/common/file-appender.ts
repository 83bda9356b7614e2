import fs from 'node:fs/promises';

/** Bytes gathered before one write: large enough that a write's thread-pool trip is amortised (a build has half a dozen open). */
const PIECE = 1024 * 1024;

/**
 * A file written front to back in bounded pieces: what is appended is copied into one reusable 1 MB
 * buffer and written when it fills (larger appends go straight through), so a file of any size is
 * written without ever being whole in memory. Not durable by itself: the caller syncs it (a staged
 * snapshot folder syncs every file in one pass before its rename). One writer at a time: a call must
 * be awaited before the next (the buffer is being written meanwhile).
 */
export class FileAppender {
  private readonly piece = Buffer.allocUnsafeSlow(PIECE);
  private used = 0;
  /** Bytes appended so far (written or buffered). */
  length = 0;

  private constructor(
    readonly file: string,
    private readonly h: fs.FileHandle,
  ) {}

  static async create(file: string): Promise<FileAppender> {
    return new FileAppender(file, await fs.open(file, 'w'));
  }

  /**
   * Appends bytes (copied before this returns). Returns a promise only when it had to write: hot loops
   * call `const w = a.append(x); if (w) await w;` and skip a microtask per call.
   */
  append(bytes: Uint8Array): Promise<void> | undefined {
    this.length += bytes.byteLength;
    if (this.used + bytes.byteLength <= PIECE) {
      this.piece.set(bytes, this.used);
      this.used += bytes.byteLength;
      return undefined;
    }
    return this.spill(bytes);
  }

  private async spill(bytes: Uint8Array): Promise<void> {
    await this.flush();
    if (bytes.byteLength >= PIECE) await this.writeAll(bytes);
    else {
      this.piece.set(bytes, 0);
      this.used = bytes.byteLength;
    }
  }

  /** Appends a string as UTF-8 (a promise only when it had to write, as append). */
  appendText(text: string): Promise<void> | undefined {
    // A short string is encoded straight into the piece (no intermediate buffer) when it fits.
    if (text.length * 3 <= PIECE - this.used) {
      const n = this.piece.write(text, this.used, 'utf8');
      this.used += n;
      this.length += n;
      return undefined;
    }
    return this.append(Buffer.from(text, 'utf8'));
  }

  /** Writes what is buffered. */
  async flush(): Promise<void> {
    if (this.used === 0) return;
    await this.writeAll(this.piece.subarray(0, this.used));
    this.used = 0;
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.h.close();
    }
  }

  private async writeAll(bytes: Uint8Array): Promise<void> {
    for (let done = 0; done < bytes.byteLength; ) {
      const { bytesWritten } = await this.h.write(bytes, done, bytes.byteLength - done);
      done += bytesWritten;
    }
  }
}
