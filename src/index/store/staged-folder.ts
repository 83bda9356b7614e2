import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { SMALL_FILE_BYTES } from '../../common/durable-write';
import { FileAppender } from '../../common/file-appender';

/** Largest single write of a large file; fsyncs in flight at once. */
const WRITE_PIECE = 16 * 1024 * 1024;
const SYNCS_IN_FLIGHT = 8;

/**
 * A folder filled in place and then renamed into view (a snapshot's `<id>.building/`). Nothing reads its
 * files before the rename, so they need neither a temp file and rename each nor an fsync as each is
 * written: `sync()` makes every file and folder entry durable in one pass just before the rename, the
 * fsyncs in flight together so the file system can commit them at once (one fsync per file as written
 * cost a journal commit each). A crash before the rename leaves a `.building` folder the next build
 * removes, so a half-written file is never seen.
 */
export class StagedFolder {
  private readonly files = new Set<string>();
  private readonly dirs = new Set<string>();
  /** Files written here to be renamed out, over their target, once everything is durable. */
  private readonly moves: Array<{ from: string; to: string; then: () => void }> = [];

  constructor(readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
    this.dirs.add(root);
  }

  /** Creates a folder inside the staged one (and its parents), to be synced with the rest. */
  mkdir(dir: string): void {
    if (this.dirs.has(dir)) return;
    if (!dir.startsWith(this.root + path.sep)) throw new Error(`internal: ${dir} is outside ${this.root}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let d = dir; !this.dirs.has(d); d = path.dirname(d)) this.dirs.add(d);
  }

  /** Writes a whole file (blocking when small, as durable-write does). */
  async write(file: string, content: string | Uint8Array): Promise<void> {
    this.mkdir(path.dirname(file));
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    if (data.byteLength < SMALL_FILE_BYTES) fs.writeFileSync(file, data);
    else {
      const h = await fsp.open(file, 'w');
      try {
        for (let pos = 0; pos < data.byteLength; ) {
          const { bytesWritten } = await h.write(data, pos, Math.min(WRITE_PIECE, data.byteLength - pos), pos);
          pos += bytesWritten;
        }
      } finally {
        await h.close();
      }
    }
    this.files.add(file);
  }

  /** A file written front to back in pieces (see FileAppender), synced with the rest; the caller closes it. */
  async append(file: string): Promise<FileAppender> {
    this.mkdir(path.dirname(file));
    const appender = await FileAppender.create(file);
    this.files.add(file);
    return appender;
  }

  /** Forgets a file removed before the sync (a build's scratch file): it is not synced. */
  untrack(file: string): void {
    this.files.delete(file);
  }

  /**
   * A file outside the folder that changes together with it (the doc_id registry): written here as
   * `name`, synced with the rest, and renamed over `target` by sync(), then `then` runs. A crash before
   * that leaves the target as it was, and the staged copy goes with the folder.
   */
  async writeAndMoveOut(name: string, content: string | Uint8Array, target: string, then: () => void = () => undefined): Promise<void> {
    const from = path.join(this.root, name);
    await this.write(from, content);
    this.moves.push({ from, to: target, then });
  }

  /** A file put in the folder by other means (a copy), synced with the rest. */
  track(file: string): void {
    this.files.add(file);
  }

  /**
   * Every file written and every folder entry made here is on disk when this resolves; then, unless
   * `beforeMoves` throws, the files staged to move out replace their targets.
   */
  async sync(beforeMoves: () => void = () => undefined): Promise<void> {
    const work = [...[...this.files].map((f) => () => syncFile(f)), ...[...this.dirs].map((d) => () => syncDir(d))];
    let next = 0;
    const worker = async () => {
      while (next < work.length) await work[next++]!();
    };
    await Promise.all(Array.from({ length: Math.min(SYNCS_IN_FLIGHT, work.length) }, worker));
    beforeMoves();
    for (const m of this.moves.splice(0)) {
      fs.renameSync(m.from, m.to);
      this.files.delete(m.from);
      m.then();
    }
  }
}

async function syncFile(file: string): Promise<void> {
  // Opened for writing: Windows flushes only handles with write access.
  const h = await fsp.open(file, 'r+');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  let h: fsp.FileHandle;
  try {
    h = await fsp.open(dir, 'r');
  } catch (err) {
    // Windows cannot open a folder to flush it; its entries are made durable by NTFS's own journal.
    if (process.platform === 'win32') return;
    throw err;
  }
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}
