import { BpeMerger, FILTER_WORDS, PAIR_SLOTS, SLOT_WORDS, isPackedRanks, type BpeTables } from './bpe-merger';

/**
 * The o200k tokenizer's tables as one file (dist/o200k.bin, written by the build): the character classes
 * of its split pattern and BpeMerger's tables, as they are in memory. Building them at the first count
 * cost every process that counts (each `docqa` command that answers or builds, each ingestion worker)
 * about 115 ms: 75 ms for the merger's tables, 40 ms for the classes; reading them whole takes a few.
 *
 * Layout, 32-bit little-endian words: a header of eight words (magic, version, bytes of packed ranks,
 * slot words, longest token, filter words, pair words, 0), the class table (65,536 bytes), the ranks as
 * `packRanks` packed them (padded to a word), then the slots, the filter and the pairs.
 */
const MAGIC = 0x54425144; // "DQBT"
const VERSION = 1;
const HEADER_BYTES = 32;
const CLASS_BYTES = 0x10000;

export interface TokenizerTables {
  /** Class bits of every UTF-16 code unit (tokenizer.ts, fillClassTable). */
  classes: Uint8Array;
  merger: BpeMerger;
}

const pad4 = (n: number) => (n + 3) & ~3;
const littleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

export function writeTokenizerTables(classes: Uint8Array, merger: BpeMerger): Uint8Array {
  if (classes.length !== CLASS_BYTES) throw new Error(`a class table has ${CLASS_BYTES} entries, not ${classes.length}`);
  const t = merger.tables;
  const arenaAt = HEADER_BYTES + CLASS_BYTES;
  const slotsAt = arenaAt + pad4(t.arena.length);
  const out = new Uint8Array(slotsAt + 4 * (t.slots.length + t.filter.length + t.pairs.length));
  const view = new DataView(out.buffer);
  [MAGIC, VERSION, t.arena.length, t.slots.length, t.maxTokenBytes, t.filter.length, t.pairs.length, 0].forEach((w, i) => view.setUint32(4 * i, w, true));
  out.set(classes, HEADER_BYTES);
  out.set(t.arena, arenaAt);
  let at = slotsAt;
  for (const words of [t.slots, t.filter, t.pairs]) {
    for (let i = 0; i < words.length; i++, at += 4) view.setInt32(at, words[i]!, true);
  }
  return out;
}

/**
 * The tables of a file `writeTokenizerTables` wrote, as views of its bytes (no copy on a little-endian
 * machine; elsewhere the merger's tables are built again from the ranks the file carries). Throws,
 * saying what is wrong, for a file that is not one or is cut short.
 */
export function readTokenizerTables(file: Uint8Array): TokenizerTables {
  if (file.byteOffset % 4 !== 0) file = file.slice();
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file.length < HEADER_BYTES || view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION) throw new Error(`not a tokenizer table file of version ${VERSION}`);
  const [arenaBytes, slotWords, maxTokenBytes, filterWords, pairWords] = [2, 3, 4, 5, 6].map((i) => view.getUint32(4 * i, true)) as [number, number, number, number, number];
  const slotCount = slotWords / SLOT_WORDS;
  if (!Number.isInteger(slotCount) || slotCount < 1 || (slotCount & (slotCount - 1)) !== 0 || filterWords !== FILTER_WORDS || pairWords !== PAIR_SLOTS || maxTokenBytes < 1 || maxTokenBytes > 255) {
    throw new Error('tokenizer table file has a header this version does not read');
  }
  const arenaAt = HEADER_BYTES + CLASS_BYTES;
  const slotsAt = arenaAt + pad4(arenaBytes);
  const size = slotsAt + 4 * (slotWords + filterWords + pairWords);
  if (file.length !== size) throw new Error(`tokenizer table file is ${file.length} bytes where its header says ${size}`);
  const classes = file.subarray(HEADER_BYTES, arenaAt);
  const arena = file.subarray(arenaAt, arenaAt + arenaBytes);
  if (!isPackedRanks(arena)) throw new Error('tokenizer table file does not hold packed ranks');
  if (!littleEndian) return { classes, merger: BpeMerger.fromPacked(arena) };
  const words = (at: number, n: number) => new Int32Array(file.buffer, file.byteOffset + at, n);
  const tables: BpeTables = {
    arena,
    slots: words(slotsAt, slotWords),
    maxTokenBytes,
    filter: words(slotsAt + 4 * slotWords, filterWords),
    pairs: words(slotsAt + 4 * (slotWords + filterWords), pairWords),
  };
  return { classes, merger: new BpeMerger(tables) };
}
