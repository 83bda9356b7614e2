import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { StoreError, errorMessage } from './errors';

/**
 * Persistent embedding cache: an unchanged block is never embedded twice. One folder per
 * (endpoint family, model, dimensions); entries keyed by sha256 of the normalised text (NFC, white space
 * folded). Each build appends one segment file `seg-*.bin` of records [32-byte key][dims × float32 LE],
 * written atomically, so a crash loses at most the segment being written and never damages others.
 */
export const EMBEDDING_CACHE_FORMAT_VERSION = 1;

export function normalizeForEmbedding(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

export function embeddingKey(text: string): string {
  return crypto.createHash('sha256').update(normalizeForEmbedding(text)).digest('hex');
}

export class EmbeddingCache {
  private entries: Map<string, Float32Array> | null = null;
  readonly dir: string;
  /** Vector size: the requested `dimensions`, or learnt from the first vectors (then kept in meta.json). */
  dims: number | null;

  constructor(
    root: string,
    readonly family: string,
    readonly model: string,
    requestedDims: number | null,
  ) {
    const id = crypto.createHash('sha256').update(`${family}\n${model}\n${requestedDims ?? 'native'}`).digest('hex').slice(0, 16);
    this.dir = path.join(root, id);
    this.dims = requestedDims;
  }

  private async load(): Promise<Map<string, Float32Array>> {
    if (this.entries) return this.entries;
    const map = new Map<string, Float32Array>();
    if (this.dims === null) {
      try {
        const meta = JSON.parse(await fs.readFile(path.join(this.dir, 'meta.json'), 'utf8')) as { dims?: unknown };
        if (typeof meta.dims === 'number') this.dims = meta.dims;
      } catch {
        // No meta yet: nothing cached for this model.
      }
    }
    if (this.dims === null) {
      this.entries = map;
      return map;
    }
    const dims = this.dims;
    let names: string[] = [];
    try {
      names = (await fs.readdir(this.dir)).filter((n) => n.startsWith('seg-') && n.endsWith('.bin')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StoreError('store_io', `cannot read ${this.dir}: ${errorMessage(err)}`);
    }
    const rec = 32 + dims * 4;
    for (const n of names) {
      const buf = await fs.readFile(path.join(this.dir, n));
      // A segment of the wrong size is ignored whole: entries are only a cache and are recomputed.
      if (buf.length % rec !== 0) continue;
      // Vectors are views into the segment's bytes (records keep 4-byte alignment); a copy only when the
      // buffer itself is not 4-byte aligned (a large readFile never is: it owns its memory from offset 0).
      const aligned = buf.byteOffset % 4 === 0 ? buf : Buffer.from(new Uint8Array(buf));
      for (let off = 0; off < aligned.length; off += rec) map.set(aligned.toString('hex', off, off + 32), new Float32Array(aligned.buffer, aligned.byteOffset + off + 32, dims));
    }
    this.entries = map;
    return map;
  }

  async get(key: string): Promise<Float32Array | undefined> {
    return (await this.load()).get(key);
  }

  async putAll(items: ReadonlyArray<readonly [string, Float32Array]>): Promise<void> {
    if (items.length === 0) return;
    const map = await this.load();
    const fresh = items.filter(([k]) => !map.has(k));
    if (fresh.length === 0) return;
    const dims = (this.dims ??= fresh[0]![1].length);
    const rec = 32 + dims * 4;
    const buf = Buffer.alloc(fresh.length * rec);
    fresh.forEach(([k, v], i) => {
      if (v.length !== dims) throw new Error(`vector of ${v.length} dimensions in a ${dims}-dimension cache`);
      Buffer.from(k, 'hex').copy(buf, i * rec);
      for (let j = 0; j < dims; j++) buf.writeFloatLE(v[j]!, i * rec + 32 + j * 4);
    });
    try {
      await fs.mkdir(this.dir, { recursive: true });
      await writeFileAtomic(path.join(this.dir, 'meta.json'), JSON.stringify({ formatVersion: EMBEDDING_CACHE_FORMAT_VERSION, family: this.family, model: this.model, dims }), { fsync: true });
      await writeFileAtomic(path.join(this.dir, `seg-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}.bin`), buf, { fsync: true });
    } catch (err) {
      throw new StoreError('store_io', `cannot write the embedding cache: ${errorMessage(err)}`, { cause: err });
    }
    for (const [k, v] of fresh) map.set(k, v);
  }
}
