import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { readWhole } from './read-file';

/**
 * Below this size a file is read or written with blocking calls: on the machines measured here one
 * thread-pool round trip costs more than the write itself, and an incremental build makes dozens of such
 * small writes (manifest, registry, pointer, a small segment). The extension host is blocked for well
 * under a millisecond each. Larger files stay asynchronous, so a big build never freezes it.
 */
export const SMALL_FILE_BYTES = 1 << 20;

/** Atomic, durable write (temp file, fsync, rename; write-file-atomic), blocking when small. */
export async function writeDurable(file: string, content: string | Uint8Array): Promise<void> {
  const data = typeof content === 'string' ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const size = typeof data === 'string' ? data.length * 3 : data.byteLength;
  if (size < SMALL_FILE_BYTES) writeFileAtomic.sync(file, data, { fsync: true });
  else await writeFileAtomic(file, data, { fsync: true });
}

let piecesWritten = 0;

/**
 * Atomic, durable write of a large file made piece by piece, so that it is never whole in memory: a
 * temporary file beside it (named as write-file-atomic names its own, `<target>.<digits>`, so that
 * sweepStaleTempFiles removes one a crash left), fsync, rename. A piece may be reused for the next
 * one once the iterator is asked for it.
 */
export async function writeDurablePieces(file: string, pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
  const temp = `${file}.${process.pid}${String(++piecesWritten).padStart(6, '0')}`;
  const h = await fs.promises.open(temp, 'w');
  let open = true;
  try {
    let at = 0;
    for await (const piece of pieces)
      for (let done = 0; done < piece.byteLength; ) {
        const { bytesWritten } = await h.write(piece, done, piece.byteLength - done, at);
        done += bytesWritten;
        at += bytesWritten;
      }
    await h.sync();
    open = false;
    await h.close();
    await fs.promises.rename(temp, file);
  } catch (err) {
    if (open) await h.close().catch(() => {});
    await fs.promises.rm(temp, { force: true }).catch(() => {});
    throw err;
  }
}

/**
 * A whole file's bytes, read with one blocking call when small. The bytes start at offset 0 of their
 * own buffer (a small read may come from Node's shared pool otherwise), so typed-array views on them
 * keep the file's alignment.
 */
export async function readSmallOrWhole(file: string): Promise<Uint8Array> {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
    return readWhole(file);
  }
  if (size >= SMALL_FILE_BYTES) return readWhole(file);
  const bytes = fs.readFileSync(file);
  return bytes.byteOffset === 0 ? bytes : new Uint8Array(bytes);
}

/** fsync of a directory, so the entries just created or renamed in it survive a crash. */
export function fsyncDirSync(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A temporary file of an atomic write: write-file-atomic names it `<target>.<digits>` beside its target. */
const ATOMIC_TEMP = /\.(json|dqe|bin)\.\d+$/;

/**
 * Removes the temporary files that atomic writes killed mid-way left in `folder` (not below it). The
 * target beside each is whole and nobody reads them, but nothing else removes them (an embedding
 * cache segment's is megabytes). A write takes milliseconds, so one untouched for `olderThanMs`
 * belongs to a write that died, never to one in progress in another process. Returns how many went.
 */
export async function sweepStaleTempFiles(folder: string, olderThanMs = 10 * 60_000, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const n of names) {
    if (!ATOMIC_TEMP.test(n)) continue;
    const file = path.join(folder, n);
    try {
      const st = fs.statSync(file);
      if (!st.isFile() || now - st.mtimeMs < olderThanMs) continue;
      fs.rmSync(file, { force: true });
      removed++;
    } catch {
      // Gone already, or not ours to remove: the next sweep looks again.
    }
  }
  return removed;
}
