/**
 * The `handwritten` group's storage rows: DocQA's own files against SQLite (better-sqlite3) and LMDB
 * (lmdb-js) on what a real snapshot holds, same data, same run. vectors.f32 (rows × 1,024 float32) at
 * 10k and 100k blocks: write, bytes, the full load snapshot activation does. keyword.pack (the DQPK pack
 * of a 100k-block BM25F index, term table included): write, bytes, full load, and a cold query's 20
 * term look-ups (a store need not load the index to answer). The embedding cache's seg-*.dqe of a
 * 100k-block build (written 1,024 vectors at a time, as the embed phase flushes, then compacted): write,
 * bytes, a rebuild's look-up of every block and a one-file edit's look-up of 10 (8 cached). Every
 * contender's result is checked equal to the data first. Value = ours, floor = the store's.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddingCache } from '../src/index/embed/embedding-cache';
import { buildBm25, type Bm25Data } from '../src/index/search/bm25-build';
import { normalizeRows } from '../src/index/search/vector-index';
import { SEGMENT_FILES, scatterSegmentVectors } from '../src/index/store/segment-store';
import { writeKeywordFiles } from '../src/index/store/segment-writer';
import { readSegmentKeyword2 } from '../src/index/store/segment-reader';
import { SEGMENT_FILES_2 } from '../src/index/store/segment-format';
import { readPack } from '../src/index/store/binary-pack';
import { readWhole } from '../src/common/read-file';
import { PackedTerms } from '../src/index/search/term-table';
import { StagedFolder } from '../src/index/store/staged-folder';
import type { TermTable } from '../src/index/search/term-table';
import { seededRandom } from './fixtures';
import type { BenchRow } from './report';
import { STORES, bytesOnDisk, type BlobStore, type KeyKind } from './store-contenders';

const DIMS = 1024;
const ROW_BYTES = DIMS * 4;
/** As the embed phase flushes the cache (CACHE_FLUSH_EVERY in embed-phase.ts). */
const CACHE_BATCH = 1024;
const QUERY_TERMS = 20;

const gc = () => (globalThis as { gc?: () => void }).gc?.();

async function timed<T>(f: () => T): Promise<{ ms: number; result: Awaited<T> }> {
  gc();
  const t = performance.now();
  const result = await f();
  return { ms: performance.now() - t, result };
}

/** Rows "ours vs each store" for one measure of every contender (lower is better for every measure here). */
function versus(label: string, unit: string, measured: ReadonlyMap<string, number>): BenchRow[] {
  const ours = measured.get('ours')!;
  return STORES.map(({ name }) => ({ name: `handwritten.store.${label} (vs ${name})`, value: ours, unit, floor: measured.get(name)!, ratio: ours / measured.get(name)!, target: '<= 1' }));
}

/** Megabytes on disk of each contender's folder. */
function megabytes(dirs: ReadonlyMap<string, string>): Map<string, number> {
  return new Map([...dirs].map(([n, d]) => [n, bytesOnDisk(d) / 1e6]));
}

interface Untimed<T> {
  /** Before each run. */
  prepare?: (name: string) => void;
  /** After each contender's first run, on its result: throws when the answer is wrong. */
  check?: (name: string, result: T) => void;
}

/** Best of `rounds` of each contender, interleaved (which goes first rotates); the first round's answers checked. */
async function bestOf<T>(rounds: number, contenders: ReadonlyArray<readonly [string, () => T | Promise<T>]>, untimed: Untimed<T> = {}): Promise<Map<string, number>> {
  const best = new Map(contenders.map(([n]) => [n, Infinity]));
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < contenders.length; i++) {
      const [name, run] = contenders[(i + r) % contenders.length]!;
      untimed.prepare?.(name);
      const { ms, result } = await timed(run);
      if (r === 0) untimed.check?.(name, result);
      best.set(name, Math.min(best.get(name)!, ms));
    }
  return best;
}

/** Best of `rounds` writes of each contender (ours and each store), each into an emptied folder. */
function bestWrite(rounds: number, dirs: ReadonlyMap<string, string>, ours: (dir: string) => Promise<unknown>, store: (s: Store, dir: string) => Promise<unknown>): Promise<Map<string, number>> {
  const contenders: Array<readonly [string, () => unknown]> = [['ours', () => ours(dirs.get('ours')!)], ...STORES.map((s) => [s.name, () => store(s, dirs.get(s.name)!)] as const)];
  return bestOf(rounds, contenders, { prepare: (name) => fs.rmSync(dirs.get(name)!, { recursive: true, force: true }) });
}

/** The contenders' folders under `root`, by name. */
function folders(root: string, what: string): Map<string, string> {
  return new Map(['ours', ...STORES.map((s) => s.name)].map((n) => [n, path.join(root, `${what}-${n}`)]));
}

function rowView(matrix: Float32Array, r: number): Buffer {
  return Buffer.from(matrix.buffer, matrix.byteOffset + r * ROW_BYTES, ROW_BYTES);
}

function fail(message: string): never {
  throw new Error(message);
}

function sameBytes(a: ArrayBufferView, b: ArrayBufferView, what: string): void {
  if (Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) !== 0) throw new Error(`${what} differs from what was written`);
}

type Store = (typeof STORES)[number];

async function writeStore(store: Store, dir: string, kind: KeyKind, batches: Iterable<Iterable<readonly [number | Buffer | string, Buffer]>>): Promise<void> {
  const s = store.open(dir, kind);
  for (const b of batches) await s.write(b);
  await s.close();
}

/** Opens a store read-only, runs `f` on it and closes it. */
async function withStore<T>(store: Store, dir: string, kind: KeyKind, f: (s: BlobStore) => T): Promise<T> {
  const s = store.open(dir, kind, true);
  try {
    return f(s);
  } finally {
    await s.close();
  }
}

async function vectorRows(root: string, matrix: Float32Array, rows: number): Promise<BenchRow[]> {
  const label = `vectors_f32.${rows / 1000}k_x_${DIMS}`;
  const data = matrix.subarray(0, rows * DIMS);
  const target = new Float32Array(rows * DIMS);
  const dirs = folders(root, `vectors-${rows}`);
  const writes = await bestWrite(
    rows > 10_000 ? 1 : 3,
    dirs,
    async (dir) => {
      const staged = new StagedFolder(dir);
      await staged.write(path.join(dir, SEGMENT_FILES.vectors), new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      await staged.sync();
    },
    (store, dir) => writeStore(store, dir, 'row', [Array.from({ length: rows }, (_, r) => [r, rowView(data, r)] as const)]),
  );
  const targetBytes = new Uint8Array(target.buffer);
  const loads: Array<readonly [string, () => unknown]> = [
    ['ours', () => scatterSegmentVectors(dirs.get('ours')!, rows, DIMS, [[0, 0, rows]], target)],
    ...STORES.map((store) => [store.name, () => withStore(store, dirs.get(store.name)!, 'row', (s) => s.scan((k, v) => targetBytes.set(v, (k as number) * ROW_BYTES)))] as const),
  ];
  let checked = 0;
  const loadMs = await bestOf(rows > 10_000 ? 2 : 4, loads, {
    prepare: () => void (checked < loads.length && target.fill(0)),
    check: (name) => {
      sameBytes(target, data, `${name}'s ${label}`);
      checked++;
    },
  });
  return [
    ...versus(`${label}.write.ms`, 'ms', writes),
    ...versus(`${label}.bytes_on_disk.MB`, 'MB', megabytes(dirs)),
    ...versus(`${label}.full_load.ms`, 'ms', loadMs),
  ];
}

/** A term's postings as one blob: blocks (u32), then text tfs and heading tfs (u16 each). */
function postingBlob(d: Bm25Data, t: number): Buffer {
  const a = d.offsets[t]!;
  const n = d.offsets[t + 1]! - a;
  const b = Buffer.alloc(n * 8);
  Buffer.from(d.blocks.buffer, d.blocks.byteOffset + a * 4, n * 4).copy(b, 0);
  Buffer.from(d.tfs.buffer, d.tfs.byteOffset + a * 2, n * 2).copy(b, n * 4);
  Buffer.from(d.headTfs.buffer, d.headTfs.byteOffset + a * 2, n * 2).copy(b, n * 6);
  return b;
}

/** The key of the record with the block lengths: a single space, which no term is (terms never hold white space). */
const LENGTHS_KEY = ' ';

function* keywordRecords(d: Bm25Data): Generator<readonly [string, Buffer]> {
  const n = d.docLengths.length;
  const lengths = Buffer.alloc(n * 8);
  Buffer.from(d.docLengths.buffer, d.docLengths.byteOffset, n * 4).copy(lengths, 0);
  Buffer.from(d.headLengths.buffer, d.headLengths.byteOffset, n * 4).copy(lengths, n * 4);
  yield [LENGTHS_KEY, lengths];
  for (let t = 0; t < d.terms.length; t++) yield [d.terms.at(t)!, postingBlob(d, t)];
}

/** The index from a store's records, in the store's key order: what a store-backed load would build. */
function assembleKeyword(s: BlobStore): Bm25Data {
  const terms: string[] = [];
  const lists: Uint8Array[] = [];
  let lengths: Uint8Array | null = null;
  s.scan((k, v) => {
    if (k === LENGTHS_KEY) lengths = v;
    else {
      terms.push(k as string);
      lists.push(v);
    }
  });
  const total = lists.reduce((n, l) => n + l.length / 8, 0);
  const offsets = new Uint32Array(terms.length + 1);
  const blocks = new Uint32Array(total);
  const tfs = new Uint16Array(total);
  const headTfs = new Uint16Array(total);
  let at = 0;
  lists.forEach((l, t) => {
    const n = l.length / 8;
    offsets[t] = at;
    new Uint8Array(blocks.buffer, at * 4, n * 4).set(l.subarray(0, n * 4));
    new Uint8Array(tfs.buffer, at * 2, n * 2).set(l.subarray(n * 4, n * 6));
    new Uint8Array(headTfs.buffer, at * 2, n * 2).set(l.subarray(n * 6));
    at += n;
  });
  offsets[terms.length] = at;
  const L = lengths as Uint8Array | null;
  if (!L) throw new Error('the store lost the block lengths');
  const n = L.length / 8;
  const docLengths = new Uint32Array(n);
  const headLengths = new Uint32Array(n);
  new Uint8Array(docLengths.buffer).set(L.subarray(0, n * 4));
  new Uint8Array(headLengths.buffer).set(L.subarray(n * 4));
  return { terms, offsets, blocks, tfs, headTfs, docLengths, headLengths };
}

function sameKeyword(a: Bm25Data, b: Bm25Data, who: string): void {
  if (a.terms.length !== b.terms.length) throw new Error(`${who}: ${a.terms.length} terms, expected ${b.terms.length}`);
  for (let t = 0; t < a.terms.length; t++) if (a.terms.at(t) !== b.terms.at(t)) throw new Error(`${who}: term ${t} is ${a.terms.at(t)}, expected ${b.terms.at(t)}`);
  for (const k of ['offsets', 'blocks', 'tfs', 'headTfs', 'docLengths', 'headLengths'] as const) sameBytes(a[k], b[k], `${who}'s ${k}`);
}

/** Index of `term` in a sorted term table, or -1 (the first term not below it, by bisection). */
function findTerm(terms: TermTable, term: string): number {
  let lo = 0;
  for (let hi = terms.length; lo < hi; ) {
    const mid = (lo + hi) >>> 1;
    if (terms.at(mid)! < term) lo = mid + 1;
    else hi = mid;
  }
  return terms.at(lo) === term ? lo : -1;
}

/** Sum of the text tfs of each term's postings (a query's touch of every posting it scores). */
function tfSum(d: Bm25Data, query: readonly string[]): number {
  let s = 0;
  for (const q of query) {
    const t = findTerm(d.terms, q);
    for (let p = d.offsets[t]!; t >= 0 && p < d.offsets[t + 1]!; p++) s += d.tfs[p]!;
  }
  return s;
}

/**
 * Our keyword files loaded whole into the arrays of a Bm25Data (the index itself never does this: it
 * reads a term's postings when a query needs them): keyword.pack, then keyword.postings, whose per-term
 * records [blocks | tfs | headTfs] are laid out again as three arrays.
 */
async function loadWholeKeyword(dir: string): Promise<Bm25Data> {
  const a = (await readPack(path.join(dir, SEGMENT_FILES_2.keyword))).arrays;
  const raw = await readWhole(path.join(dir, SEGMENT_FILES_2.postings));
  const offsets64 = a.offsets as Float64Array;
  const terms = new PackedTerms(a.termChars as Uint16Array, a.termStarts as Uint32Array);
  const total = offsets64[offsets64.length - 1]!;
  const blocks = new Uint32Array(total);
  const tfs = new Uint16Array(total);
  const headTfs = new Uint16Array(total);
  for (let t = 0; t < terms.length; t++) {
    const s = offsets64[t]!;
    const n = offsets64[t + 1]! - s;
    const at = raw.byteOffset + 8 * s;
    blocks.set(new Uint32Array(raw.buffer, at, n), s);
    tfs.set(new Uint16Array(raw.buffer, at + 4 * n, n), s);
    headTfs.set(new Uint16Array(raw.buffer, at + 6 * n, n), s);
  }
  return { terms, offsets: Uint32Array.from(offsets64), blocks, tfs, headTfs, docLengths: a.docLengths as Uint32Array, headLengths: a.headLengths as Uint32Array };
}

async function keywordRows(root: string, texts: readonly string[], headings: readonly string[]): Promise<BenchRow[]> {
  const data = buildBm25(texts, headings);
  const label = `keyword_pack.${texts.length / 1000}k_blocks`;
  const dirs = folders(root, 'keyword');
  const writes = await bestWrite(
    1,
    dirs,
    async (dir) => {
      const staged = new StagedFolder(dir);
      await writeKeywordFiles(staged, dir, [data], data.docLengths, data.headLengths);
      await staged.sync();
    },
    (store, dir) => writeStore(store, dir, 'term', [keywordRecords(data)]),
  );
  const loads: Array<readonly [string, () => Promise<Bm25Data>]> = [
    ['ours', () => loadWholeKeyword(dirs.get('ours')!)],
    ...STORES.map((store) => [store.name, () => withStore(store, dirs.get(store.name)!, 'term', assembleKeyword)] as const),
  ];
  const next = seededRandom(7);
  const query = Array.from({ length: QUERY_TERMS }, () => data.terms.at(Math.floor((next() + 0.5) * data.terms.length))!);
  const expected = tfSum(data, query);
  const queries: Array<readonly [string, () => Promise<number>]> = [
    ['ours', async () => {
      // The query as the index runs it: the term table loaded, each term's postings read alone.
      const k = await readSegmentKeyword2(dirs.get('ours')!, texts.length);
      let sum = 0;
      for (const q of query) {
        const t = findTerm(k.terms, q);
        if (t >= 0) for (const tf of k.postings(t).tfs) sum += tf;
      }
      return sum;
    }],
    ...STORES.map((store) => [store.name, () => withStore(store, dirs.get(store.name)!, 'term', (s) => {
      let sum = 0;
      s.lookup(query, (_, v) => {
        const n = v!.length / 8;
        for (let p = 0; p < n; p++) sum += v!.readUInt16LE(n * 4 + p * 2);
      });
      return sum;
    })] as const),
  ];
  const loadMs = await bestOf(2, loads, { check: (name, got) => sameKeyword(got, data, name) });
  const queryMs = await bestOf(3, queries, { check: (name, got) => void (got !== expected && fail(`${name}: a cold query's postings differ`)) });
  return [
    ...versus(`${label}.write.ms`, 'ms', writes),
    ...versus(`${label}.bytes_on_disk.MB`, 'MB', megabytes(dirs)),
    ...versus(`${label}.full_load.ms`, 'ms', loadMs),
    ...versus(`${label}.cold_query_${QUERY_TERMS}_terms.ms`, 'ms', queryMs),
  ];
}

async function cacheRows(root: string, matrix: Float32Array, rows: number): Promise<BenchRow[]> {
  const label = `embedding_cache_dqe.${rows / 1000}k_x_${DIMS}`;
  const hex = Array.from({ length: rows }, (_, i) => crypto.createHash('sha256').update(`block ${i}`).digest('hex'));
  const keys = hex.map((h) => Buffer.from(h, 'hex'));
  const batches = <T>(item: (i: number) => T): T[][] => Array.from({ length: Math.ceil(rows / CACHE_BATCH) }, (_, b) => Array.from({ length: Math.min(CACHE_BATCH, rows - b * CACHE_BATCH) }, (_, j) => item(b * CACHE_BATCH + j)));
  const dirs = folders(root, 'cache');
  const writes = await bestWrite(
    1,
    dirs,
    async (dir) => {
      const cache = new EmbeddingCache(dir, 'bench', 'random', DIMS);
      for (const b of batches((i) => [hex[i]!, matrix.subarray(i * DIMS, (i + 1) * DIMS)] as const)) await cache.putAll(b);
      await cache.compact();
    },
    (store, dir) => writeStore(store, dir, 'hash', batches((i) => [keys[i]!, rowView(matrix, i)] as const)),
  );
  // Our cache's folder is renamed before each cold open: the process's memo of key blocks is by path.
  let generation = 0;
  const fresh = () => {
    const from = dirs.get('ours')!;
    dirs.set('ours', path.join(root, `cache-ours-${++generation}`));
    fs.renameSync(from, dirs.get('ours')!);
    return new EmbeddingCache(dirs.get('ours')!, 'bench', 'random', DIMS);
  };

  const next = seededRandom(11);
  const order = Array.from({ length: rows }, (_, i) => i);
  for (let i = rows - 1; i > 0; i--) {
    const j = Math.floor((next() + 0.5) * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  // A one-file edit: its 10 blocks, 8 unchanged (cached) and 2 new.
  const edit = [...order.slice(0, 8).map((i) => hex[i]!), ...[0, 1].map((i) => crypto.createHash('sha256').update(`new ${i}`).digest('hex'))];
  const lookupStore = (store: Store, wanted: readonly string[]) => () =>
    withStore(store, dirs.get(store.name)!, 'hash', (s) => {
      const out = new Map<string, Float32Array>();
      s.lookup(wanted.map((h) => Buffer.from(h, 'hex')), (i, v) => {
        if (!v) return;
        const f = new Float32Array(DIMS);
        new Uint8Array(f.buffer).set(v);
        out.set(wanted[i]!, f);
      });
      return out;
    });
  const contenders = (wanted: readonly string[]): Array<readonly [string, () => Promise<Map<string, Float32Array>>]> => [['ours', () => fresh().getMany(wanted)], ...STORES.map((store) => [store.name, lookupStore(store, wanted)] as const)];
  const all = order.map((i) => hex[i]!);
  const check = (hits: number) => (name: string, got: Map<string, Float32Array>) => {
    if (got.size !== hits) throw new Error(`${name}: ${got.size} keys found, expected ${hits}`);
    for (const [i, h] of hex.entries()) if (got.has(h)) sameBytes(got.get(h)!, matrix.subarray(i * DIMS, (i + 1) * DIMS), `${name}'s cached vector ${i}`);
  };
  const allMs = await bestOf(2, contenders(all), { check: check(rows) });
  const editMs = await bestOf(5, contenders(edit), { check: check(8) });
  return [
    ...versus(`${label}.write_in_${CACHE_BATCH}s.ms`, 'ms', writes),
    ...versus(`${label}.bytes_on_disk.MB`, 'MB', megabytes(dirs)),
    ...versus(`${label}.cold_lookup_all.ms`, 'ms', allMs),
    ...versus(`${label}.cold_lookup_10_of_an_edit.ms`, 'ms', editMs),
  ];
}

/** The storage rows; `texts`/`headings` are the 100k blocks' keyword fields. */
export async function storeRows(texts: readonly string[], headings: readonly string[], sizes: readonly number[] = [10_000, 100_000]): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-stores-'));
  try {
    const largest = Math.max(...sizes);
    const next = seededRandom(23);
    const matrix = new Float32Array(largest * DIMS);
    for (let i = 0; i < matrix.length; i++) matrix[i] = next();
    normalizeRows(matrix, DIMS);
    const rows: BenchRow[] = [];
    for (const n of sizes) {
      rows.push(...(await vectorRows(root, matrix, n)));
      for (const e of fs.readdirSync(root)) fs.rmSync(path.join(root, e), { recursive: true, force: true });
    }
    rows.push(...(await keywordRows(root, texts, headings)));
    rows.push(...(await cacheRows(root, matrix, largest)));
    return rows;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
