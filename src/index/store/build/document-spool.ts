import fs from 'node:fs/promises';
import { FileAppender } from '../../../common/file-appender';
import { readFully } from '../../../common/read-file';
import { StoreError, errorMessage } from '../../../common/errors';
import type { Document } from '../../../shared/document';
import { type DocumentHead, type SerializedDocument, serializeDocument } from '../../ingest/serialized-document';

/** A parsed document set aside on disk until its batch is written: its head, and where its JSON line is in the spool file. */
export interface SpooledDocument extends DocumentHead {
  at: number;
  length: number;
}

/** A batch of spooled documents read back, each parsed when asked for (valid until the spool's next read). */
export interface SpooledBatch {
  readonly length: number;
  parse(i: number): Document;
}

/** Coalesced reads: adjacent records up to this many bytes are read in one call. */
const READ_GROUP = 8 * 1024 * 1024;

/**
 * Parsed documents of a build, one JSON line each in a scratch file of the staged snapshot folder (not
 * part of the snapshot, removed before it is synced), so a build of any size holds only the documents
 * of the batch it is writing, not every document it parsed. Our own file, just written: read back
 * without a schema check.
 */
export class DocumentSpool {
  private constructor(
    readonly file: string,
    private readonly out: FileAppender,
  ) {}

  static async create(file: string): Promise<DocumentSpool> {
    try {
      return new DocumentSpool(file, await FileAppender.create(file));
    } catch (err) {
      throw new StoreError('store_io', `cannot write ${file}: ${errorMessage(err)}`, { cause: err });
    }
  }

  /** Puts in the order they were asked for: documents arrive from several workers at once. */
  private tail: Promise<unknown> = Promise.resolve();

  /** Appends a document; its record is all the caller keeps. */
  put(doc: Document): Promise<SpooledDocument> {
    return this.putSerialized(serializeDocument(doc));
  }

  /** Appends a document an ingestion worker serialised (serializeDocument); its record is all the caller keeps. */
  putSerialized(doc: SerializedDocument): Promise<SpooledDocument> {
    const next = this.tail.then(() => this.append(doc));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async append({ head, json, release }: SerializedDocument): Promise<SpooledDocument> {
    const at = this.out.length;
    const length = json.byteLength;
    try {
      await this.out.append(json);
    } catch (err) {
      throw new StoreError('store_io', `cannot write ${this.file}: ${errorMessage(err)}`, { cause: err });
    } finally {
      // Copied or written by now: the bytes go back to their worker.
      release?.();
    }
    return { ...head, at, length };
  }

  /** Writes what is buffered, so that readBatch() sees every document put so far. */
  async flush(): Promise<void> {
    await this.tail;
    await this.out.flush();
  }

  /**
   * Where reads go: one buffer for the whole build, grown to the largest batch (a new one per group,
   * up to 8 MB each batch, waited for the collector and then stayed with the allocator).
   */
  private reads = Buffer.alloc(0);
  private readBuffer(n: number): Buffer {
    if (this.reads.length < n) this.reads = Buffer.allocUnsafeSlow(n);
    return this.reads.subarray(0, n);
  }

  /**
   * The records' bytes read into this spool's one read buffer (adjacent records in one call), each
   * parsed on demand, with the doc_id its record now has: a caller that parses one document at a time
   * holds one document's objects, not the batch's. Valid until the next read.
   */
  async readBatch(records: readonly SpooledDocument[]): Promise<SpooledBatch> {
    const order = records.map((_, i) => i).sort((a, b) => records[a]!.at - records[b]!.at);
    const where = new Array<number>(records.length);
    const buf = this.readBuffer(records.reduce((n, r) => n + r.length, 0));
    const h = await fs.open(this.file, 'r');
    try {
      let pos = 0;
      for (let k = 0; k < order.length; ) {
        // A run of records next to each other in the file, read at once.
        const first = records[order[k]!]!;
        let end = first.at + first.length;
        let j = k + 1;
        while (j < order.length && records[order[j]!]!.at === end && end - first.at < READ_GROUP) {
          end += records[order[j]!]!.length;
          j++;
        }
        if (!(await readFully(h, buf.subarray(pos, pos + end - first.at), first.at))) throw new StoreError('store_io', `${this.file} ended early`);
        for (; k < j; k++) where[order[k]!] = pos + records[order[k]!]!.at - first.at;
        pos += end - first.at;
      }
    } finally {
      await h.close();
    }
    return {
      length: records.length,
      parse: (i) => {
        const r = records[i]!;
        const doc = JSON.parse(buf.toString('utf8', where[i]!, where[i]! + r.length)) as Document;
        doc.doc_id = r.doc_id;
        return doc;
      },
    };
  }

  /** Closes and removes the file. */
  async dispose(): Promise<void> {
    await this.out.close().catch(() => undefined);
    await fs.rm(this.file, { force: true });
  }
}
