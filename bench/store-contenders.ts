/**
 * The embedded stores a maintainer would reach for instead of DocQA's own files, used as their docs
 * recommend for a bulk load: better-sqlite3 (WAL, one transaction of prepared inserts, blobs, a page size
 * that fits a 4 KB vector per row instead of spilling each onto overflow pages) and lmdb-js (one write
 * transaction, binary values, 64 KB pages for the same reason). Each store keeps one kind of record: a
 * fixed-size key (u32 row or 32-byte hash) or a term, and a blob.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { open as openLmdb } from 'lmdb';
import { ensureSqliteBinding } from './sqlite-binding';

export type KeyKind = 'row' | 'hash' | 'term';
type Key = number | Buffer | string;

/** One table of key → blob in one of the two stores. */
export interface BlobStore {
  readonly name: 'sqlite' | 'lmdb';
  /** Writes the records in one durable transaction (appending to what the store holds). */
  write(records: Iterable<readonly [Key, Buffer]>): Promise<void>;
  /** Every record in key order (the store's order: byte order of the key). */
  scan(each: (key: Key, value: Buffer) => void): void;
  /** Point lookups inside one read transaction; `each` gets undefined for a missing key. */
  lookup(keys: readonly Key[], each: (i: number, value: Buffer | undefined) => void): void;
  close(): Promise<void>;
}

const SQL_KEY: Record<KeyKind, string> = { row: 'INTEGER', hash: 'BLOB', term: 'TEXT' };

export function openSqlite(dir: string, kind: KeyKind, readonly = false): BlobStore {
  ensureSqliteBinding();
  fs.mkdirSync(dir, { recursive: true });
  const db = new Database(path.join(dir, 'store.db'), { readonly });
  if (!readonly) {
    // The page size must be set before the first table; WAL is what better-sqlite3's docs recommend.
    db.pragma('page_size = 65536');
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS t (k ${SQL_KEY[kind]} PRIMARY KEY, v BLOB NOT NULL)${kind === 'row' ? '' : ' WITHOUT ROWID'}`);
  }
  const insert = readonly ? null : db.prepare('INSERT OR IGNORE INTO t (k, v) VALUES (?, ?)');
  const all = db.prepare('SELECT k, v FROM t ORDER BY k').raw();
  const one = db.prepare('SELECT v FROM t WHERE k = ?').pluck();
  return {
    name: 'sqlite',
    async write(records) {
      db.transaction(() => {
        for (const [k, v] of records) insert!.run(k, v);
      })();
    },
    scan(each) {
      for (const [k, v] of all.iterate() as IterableIterator<[Key, Buffer]>) each(k, v);
    },
    lookup(keys, each) {
      db.transaction(() => keys.forEach((k, i) => each(i, one.get(k) as Buffer | undefined)))();
    },
    // Closing checkpoints the WAL into the database file: part of a write's cost, as a closed file is its result.
    close: async () => void db.close(),
  };
}

export function openLmdbStore(dir: string, kind: KeyKind, readOnly = false): BlobStore {
  const db = openLmdb<Buffer, Key>({ path: dir, compression: false, encoding: 'binary', keyEncoding: kind === 'row' ? 'uint32' : kind === 'hash' ? 'binary' : 'ordered-binary', pageSize: 65536, readOnly });
  return {
    name: 'lmdb',
    async write(records) {
      await db.transaction(() => {
        for (const [k, v] of records) void db.put(k, v);
      });
    },
    scan(each) {
      for (const { key, value } of db.getRange()) each(key, value);
    },
    lookup(keys, each) {
      // lmdb-js reads within one event-loop turn share one read transaction of their own. getBinaryFast
      // answers with its reused buffer, its length property set to the value's: a true view of it, no copy.
      keys.forEach((k, i) => {
        const v = db.getBinaryFast(k);
        each(i, v && v.subarray(0, v.length));
      });
    },
    // With overlappingSync (lmdb-js's default off Windows) a commit resolves before its flush: durable once flushed.
    close: async () => {
      await db.flushed;
      await db.close();
    },
  };
}

export type OpenStore = (dir: string, kind: KeyKind, readonly?: boolean) => BlobStore;
export const STORES: ReadonlyArray<{ name: BlobStore['name']; open: OpenStore }> = [
  { name: 'sqlite', open: openSqlite },
  { name: 'lmdb', open: openLmdbStore },
];

/** Bytes the folder's files take on disk (allocated blocks: LMDB's map file is sparse). */
export function bytesOnDisk(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += fs.statSync(path.join(e.parentPath, e.name)).blocks * 512;
  return n;
}
