import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { IngestError, errorMessage } from '../../common/errors';

/**
 * What DocQA unpacks from one zip-based document (Word, EPUB, PowerPoint). Only the parts a parser reads
 * are inflated (text and XML, never images or media), each checked against these bounds on its declared
 * size before a byte is inflated, and against its declared size while inflating (an entry that inflates
 * to more than it declares is refused: yauzl's size validation). An archive inside the archive is never
 * opened, so nesting (42.zip) has nothing to recurse into.
 */
export interface ZipLimits {
  /** Entries in the central directory. */
  maxEntries: number;
  /** Uncompressed bytes of one part. */
  maxPartBytes: number;
  /** Uncompressed bytes of every part read from one document, together. */
  maxTotalBytes: number;
}

// A 2,000-slide deck has ~8,000 entries; a 1,000-page thesis's document.xml is ~40 MB.
export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 20_000, maxPartBytes: 128 * 2 ** 20, maxTotalBytes: 256 * 2 ** 20 };

interface Entry {
  fileName: string;
  uncompressedSize: number;
  compressedSize: number;
  isEncrypted(): boolean;
}

/** yauzl 3's promise API (its published types are for 2.x). */
interface ZipFile {
  entryCount: number;
  eachEntry(): AsyncIterable<Entry>;
  openReadStreamPromise(entry: Entry): Promise<Readable>;
  close(): void;
}
const fromBuffer = (yauzl as unknown as { fromBufferPromise(b: Buffer, o: object): Promise<ZipFile> }).fromBufferPromise;

const mb = (n: number) => `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 0)} MB`;

/** One zip-based document's parts, unpacked on demand within its limits. */
export class ZipArchive {
  private unpacked = 0;

  private constructor(
    private readonly zip: ZipFile,
    private readonly entries: ReadonlyMap<string, Entry>,
    /** "Word document", "EPUB e-book", … for messages. */
    private readonly what: string,
    private readonly limits: ZipLimits,
  ) {}

  /** Opens `bytes` as a zip: a file that is not one fails `corrupt`, one with too many entries `too_large`. */
  static async open(bytes: Uint8Array, what: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipArchive> {
    let zip: ZipFile;
    try {
      zip = await fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, decodeStrings: true });
    } catch (err) {
      throw new IngestError('parse', 'corrupt', `not a valid ${what}: it is not a zip archive, as a ${what} is (${errorMessage(err)}); it may be another kind of file renamed, or damaged`, { cause: err });
    }
    if (zip.entryCount > limits.maxEntries) {
      zip.close();
      throw new IngestError('parse', 'too_large', `this ${what} has ${zip.entryCount} entries in its archive, over the ${limits.maxEntries} DocQA opens (a zip bomb, or not a real ${what})`);
    }
    const entries = new Map<string, Entry>();
    try {
      for await (const e of zip.eachEntry()) if (!entries.has(e.fileName)) entries.set(e.fileName, e);
    } catch (err) {
      zip.close();
      throw new IngestError('parse', 'corrupt', `the archive of this ${what} is damaged: ${errorMessage(err)}`, { cause: err });
    }
    return new ZipArchive(zip, entries, what, limits);
  }

  /** Entry names (folders included), in archive order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** A part's bytes; a missing part fails `corrupt` naming it. */
  async bytes(name: string): Promise<Uint8Array> {
    const e = this.entries.get(name);
    if (!e) throw new IngestError('parse', 'corrupt', `not a valid ${this.what}: its part ${name} is missing`);
    if (e.isEncrypted()) throw new IngestError('parse', 'encrypted', `this ${this.what} is encrypted (its part ${name} is): save it without a password to index it`);
    const { maxPartBytes, maxTotalBytes } = this.limits;
    if (e.uncompressedSize > maxPartBytes) {
      throw new IngestError('parse', 'too_large', `its part ${name} would unpack to ${mb(e.uncompressedSize)} (from ${mb(e.compressedSize)}), over the ${mb(maxPartBytes)} DocQA unpacks from one part of a ${this.what} (a zip bomb, or a document too large to read)`);
    }
    if (this.unpacked + e.uncompressedSize > maxTotalBytes) {
      throw new IngestError('parse', 'too_large', `its parts would unpack to more than the ${mb(maxTotalBytes)} DocQA unpacks from one ${this.what} (a zip bomb, or a document too large to read)`);
    }
    this.unpacked += e.uncompressedSize;
    const chunks: Buffer[] = [];
    try {
      const stream = await this.zip.openReadStreamPromise(e);
      for await (const chunk of stream) chunks.push(chunk as Buffer);
    } catch (err) {
      const msg = errorMessage(err);
      if (/too many bytes/.test(msg)) throw new IngestError('parse', 'too_large', `its part ${name} unpacks to more than the ${e.uncompressedSize} bytes its archive declares (a zip bomb)`, { cause: err });
      throw new IngestError('parse', 'corrupt', `the part ${name} of this ${this.what} cannot be unpacked: ${msg}`, { cause: err });
    }
    return Buffer.concat(chunks);
  }

  /** A text part (XML, XHTML) as UTF-8, or UTF-16 when it starts with a BOM; a leading UTF-8 BOM is dropped. */
  async text(name: string): Promise<string> {
    const b = await this.bytes(name);
    if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
    if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
    return new TextDecoder('utf-8').decode(b);
  }

  close(): void {
    this.zip.close();
  }
}
