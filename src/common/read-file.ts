import fsSync from 'node:fs';
import fs from 'node:fs/promises';

const CHUNK = 16 * 1024 * 1024;

/**
 * Reads a whole file into `target` (or a new buffer) in 16 MB reads. fs.readFile reads large files in
 * small chunks with a thread-pool round trip each, several times slower than the disk for the hundreds
 * of megabytes a snapshot's vectors take; this stays asynchronous without that cost, and can read
 * straight into a Float32Array's memory.
 */
export async function readWhole(file: string, target?: Uint8Array): Promise<Uint8Array> {
  const h = await fs.open(file, 'r');
  try {
    const { size } = await h.stat();
    if (target && target.byteLength !== size) throw new Error(`${file} has ${size} bytes, expected ${target.byteLength}`);
    const buf = target ?? new Uint8Array(size);
    let pos = 0;
    while (pos < size) {
      const { bytesRead } = await h.read(buf, pos, Math.min(CHUNK, size - pos), pos);
      if (bytesRead === 0) throw new Error(`${file} ended after ${pos} of ${size} bytes`);
      pos += bytesRead;
    }
    return buf;
  } finally {
    await h.close();
  }
}

/** Fills all of `target` from `position` (one positional read may return less); false if the file ends first. */
export async function readFully(h: fs.FileHandle, target: Uint8Array, position: number): Promise<boolean> {
  for (let done = 0; done < target.length; ) {
    const { bytesRead } = await h.read(target, done, target.length - done, position + done);
    if (bytesRead === 0) return false;
    done += bytesRead;
  }
  return true;
}

/** readFully with blocking calls, for a few small reads (one thread-pool trip costs more than each). */
export function readFullySync(fd: number, target: Uint8Array, position: number): boolean {
  for (let done = 0; done < target.length; ) {
    const n = fsSync.readSync(fd, target, done, target.length - done, position + done);
    if (n === 0) return false;
    done += n;
  }
  return true;
}
