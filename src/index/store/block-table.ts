import { StoreError } from '../../common/errors';
import type { Block } from '../../shared/document';
import { type BlockLocation, MAX_PAGE_REGIONS, type PageRegion } from '../../shared/block-location';
import { PackedTerms, packTerms } from '../search/term-table';
import type { Typed } from './binary-pack';

/**
 * A format-2 segment's blocks without their texts, as columns (`blocks.pack`): per block its index in
 * its document, token count, section (an index into the segment's table of section paths), location
 * (a kind and three numbers: LOCATION_KINDS) and where its text ends in `text.bin`; block ids as one
 * table of UTF-16 code units. Loading makes no JSON of a million blocks: the columns are views on one
 * read, and each block's text stays UTF-8 in `text.bin`'s bytes until something reads it.
 *
 * A page location's regions (its lines read by OCR on a scan: PageLocation's `boxes`) are two more
 * columns, written only when some block has them: `boxStarts` (u32, where each block's regions start,
 * one more than the blocks) and `boxes` (f32, four numbers a region, to the tenth of a point as the
 * parser rounds them). A pack without them (written before DocQA kept the regions, or with no scanned
 * page) reads as blocks without regions; a DocQA from before them reads the pack and ignores them.
 */

/** A location's kind as stored (locKind), its position in this list; each kind's numbers as locA/locB/locC. */
const LOCATION_KINDS = ['lines', 'page', 'paragraphs', 'chapter', 'slide'] as const satisfies ReadonlyArray<BlockLocation['kind']>;

function locationNumbers(l: BlockLocation): [number, number, number] {
  switch (l.kind) {
    case 'lines':
      return [l.line_start, l.line_end, 0];
    case 'page':
      return [l.page, 0, 0];
    case 'paragraphs':
      return [l.first, l.last, 0];
    case 'chapter':
      return [l.chapter, l.first, l.last];
    case 'slide':
      return [l.slide, l.first, l.last];
  }
}

/** Growable UTF-16 code units of many short strings back to back. */
class Chars {
  units: Uint16Array;
  length = 0;
  constructor(capacity: number) {
    this.units = new Uint16Array(Math.max(16, capacity));
  }
  push(s: string): void {
    if (this.length + s.length > this.units.length) {
      const next = new Uint16Array(Math.max(this.units.length * 2, this.length + s.length));
      next.set(this.units.subarray(0, this.length));
      this.units = next;
    }
    for (let i = 0; i < s.length; i++) this.units[this.length++] = s.charCodeAt(i);
  }
}

/** Columns of up to `capacity` blocks, filled in segment order. */
export class BlockTableBuilder {
  count = 0;
  private readonly blockIndex: Uint32Array;
  private readonly tokens: Uint32Array;
  private readonly section: Uint32Array;
  private readonly locKind: Uint8Array;
  private readonly locA: Uint32Array;
  private readonly locB: Uint32Array;
  private readonly locC: Uint32Array;
  private readonly textEnds: Float64Array;
  private readonly idStarts: Uint32Array;
  private readonly ids: Chars;
  private readonly sections = new Map<string, number>();
  /** Each block's regions' first number in `regions` (grown only once a block has some). */
  private readonly boxStarts: Uint32Array;
  private regions: number[] = [];

  constructor(readonly capacity: number) {
    this.blockIndex = new Uint32Array(capacity);
    this.tokens = new Uint32Array(capacity);
    this.section = new Uint32Array(capacity);
    this.locKind = new Uint8Array(capacity);
    this.locA = new Uint32Array(capacity);
    this.locB = new Uint32Array(capacity);
    this.locC = new Uint32Array(capacity);
    this.textEnds = new Float64Array(capacity);
    this.idStarts = new Uint32Array(capacity + 1);
    this.ids = new Chars(capacity * 10);
    this.boxStarts = new Uint32Array(capacity + 1);
  }

  /** One block; `textEnd` is the byte offset in text.bin just past its text. */
  add(b: Block, textEnd: number): void {
    const i = this.count++;
    if (i >= this.capacity) throw new Error(`internal: more than the ${this.capacity} blocks planned for the segment`);
    this.blockIndex[i] = b.block_index;
    this.tokens[i] = b.token_count;
    let s = this.sections.get(b.section_path);
    if (s === undefined) this.sections.set(b.section_path, (s = this.sections.size));
    this.section[i] = s;
    this.locKind[i] = LOCATION_KINDS.indexOf(b.location.kind);
    [this.locA[i], this.locB[i], this.locC[i]] = locationNumbers(b.location);
    this.textEnds[i] = textEnd;
    this.ids.push(b.block_id);
    this.idStarts[i + 1] = this.ids.length;
    if (b.location.kind === 'page' && b.location.boxes) for (const r of b.location.boxes) this.regions.push(...r);
    this.boxStarts[i + 1] = this.regions.length / 4;
  }

  /** The pack's arrays (views on the builder's columns, trimmed to the blocks added). */
  arrays(): Record<string, Typed> {
    const n = this.count;
    const table = packTerms([...this.sections.keys()]);
    return {
      blockIndex: this.blockIndex.subarray(0, n),
      tokens: this.tokens.subarray(0, n),
      section: this.section.subarray(0, n),
      locKind: this.locKind.subarray(0, n),
      locA: this.locA.subarray(0, n),
      locB: this.locB.subarray(0, n),
      locC: this.locC.subarray(0, n),
      textEnds: this.textEnds.subarray(0, n),
      idStarts: this.idStarts.subarray(0, n + 1),
      idChars: this.ids.units.subarray(0, this.ids.length),
      sectionStarts: table.starts,
      sectionChars: table.chars,
      ...(this.regions.length ? { boxStarts: this.boxStarts.subarray(0, n + 1), boxes: Float32Array.from(this.regions) } : {}),
    };
  }
}

/** A segment's block columns as read back, checked against each other and against text.bin's size. */
export interface BlockTable {
  readonly count: number;
  readonly blockIndex: Uint32Array;
  readonly tokens: Uint32Array;
  readonly section: Uint32Array;
  readonly locKind: Uint8Array;
  readonly locA: Uint32Array;
  readonly locB: Uint32Array;
  readonly locC: Uint32Array;
  readonly textEnds: Float64Array;
  readonly ids: PackedTerms;
  readonly sections: PackedTerms;
  /** Page regions (see above), when the pack has them. */
  readonly boxStarts?: Uint32Array;
  readonly boxes?: Float32Array;
}

/** Checks a million blocks in a few slices (`tick` gives the event loop back between them). */
export async function readBlockTable(arrays: Record<string, Typed>, file: string, blocks: number, textBytes: number, tick: () => Promise<void>): Promise<BlockTable> {
  const u32 = (name: string, n: number): Uint32Array => {
    const a = arrays[name];
    if (!(a instanceof Uint32Array) || a.length !== n) throw new StoreError('store_corrupt', `${file}: ${name} is missing or of the wrong length`);
    return a;
  };
  const u16 = (name: string): Uint16Array => {
    const a = arrays[name];
    if (!(a instanceof Uint16Array)) throw new StoreError('store_corrupt', `${file}: ${name} is missing`);
    return a;
  };
  const textEnds = arrays.textEnds;
  if (!(textEnds instanceof Float64Array) || textEnds.length !== blocks) throw new StoreError('store_corrupt', `${file}: textEnds is missing or of the wrong length`);
  let last = 0;
  for (let i = 0; i < blocks; i++) {
    if (!(textEnds[i]! >= last)) throw new StoreError('store_corrupt', `${file}: text offsets are out of order`);
    last = textEnds[i]!;
    if ((i & 0xffff) === 0xffff) await tick();
  }
  if (last !== textBytes) throw new StoreError('store_corrupt', `${file}: its texts take ${last} bytes, text.bin has ${textBytes}`);
  let ids: PackedTerms;
  let sections: PackedTerms;
  try {
    ids = new PackedTerms(u16('idChars'), u32('idStarts', blocks + 1));
    const sectionStarts = arrays.sectionStarts;
    if (!(sectionStarts instanceof Uint32Array)) throw new Error('sectionStarts is missing');
    sections = new PackedTerms(u16('sectionChars'), sectionStarts);
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError('store_corrupt', `${file}: ${(err as Error).message}`);
  }
  const section = u32('section', blocks);
  const locKind = arrays.locKind;
  if (!(locKind instanceof Uint8Array) || locKind.length !== blocks) throw new StoreError('store_corrupt', `${file}: locKind is missing or of the wrong length`);
  const locA = u32('locA', blocks);
  const locB = u32('locB', blocks);
  const locC = u32('locC', blocks);
  for (let i = 0; i < blocks; i++) {
    if (section[i]! >= sections.length) throw new StoreError('store_corrupt', `${file}: block ${i} names section ${section[i]} of ${sections.length}`);
    // Every kind's numbers start at 1 where the kind has them (zod's BlockLocation says the same).
    const k = locKind[i]!;
    if (k >= LOCATION_KINDS.length || locA[i]! < 1 || ((k === 0 || k >= 2) && locB[i]! < 1) || (k >= 3 && locC[i]! < 1)) throw new StoreError('store_corrupt', `${file}: block ${i} has no valid location`);
    if ((i & 0xffff) === 0xffff) await tick();
  }
  return { count: blocks, blockIndex: u32('blockIndex', blocks), tokens: u32('tokens', blocks), section, locKind, locA, locB, locC, textEnds, ids, sections, ...readRegions(arrays, file, blocks) };
}

/** The page-region columns, checked (ascending starts within the boxes), or none when the pack has none. */
function readRegions(arrays: Record<string, Typed>, file: string, blocks: number): { boxStarts?: Uint32Array; boxes?: Float32Array } {
  const { boxStarts, boxes } = arrays;
  if (boxStarts === undefined && boxes === undefined) return {};
  if (!(boxStarts instanceof Uint32Array) || boxStarts.length !== blocks + 1 || !(boxes instanceof Float32Array) || boxes.length % 4 !== 0) throw new StoreError('store_corrupt', `${file}: boxStarts or boxes is missing or of the wrong length`);
  for (let i = 0; i < blocks; i++) {
    if (boxStarts[i]! > boxStarts[i + 1]! || boxStarts[i + 1]! - boxStarts[i]! > MAX_PAGE_REGIONS) throw new StoreError('store_corrupt', `${file}: block ${i} has no valid page regions`);
  }
  if (boxStarts[0] !== 0 || boxStarts[blocks]! * 4 !== boxes.length) throw new StoreError('store_corrupt', `${file}: page regions do not add up`);
  return { boxStarts, boxes };
}

/**
 * The UTF-8 texts of a segment's blocks, in pieces of whole blocks (a Buffer holds at most a few GiB,
 * and a piece per read keeps the load's steps short); decoded when a block's text is read.
 */
export class SegmentTexts {
  constructor(
    /** The pieces, each holding the bytes of blocks [pieceFirst[k], pieceFirst[k + 1]). */
    private readonly pieces: readonly Buffer[],
    private readonly pieceFirst: Uint32Array,
    /** Byte offset of each piece's first byte in text.bin. */
    private readonly pieceStart: Float64Array,
    private readonly ends: Float64Array,
  ) {}

  text(block: number): string {
    // Binary search for the piece (a handful of pieces per segment).
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.pieceFirst[mid]! <= block) lo = mid;
      else hi = mid - 1;
    }
    const base = this.pieceStart[lo]!;
    const start = block === 0 ? 0 : this.ends[block - 1]!;
    return this.pieces[lo]!.toString('utf8', start - base, this.ends[block]! - base);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.pieces.reduce((n, p) => n + p.byteLength, 0);
  }
}

/** Pieces of at most this many bytes (a single block larger than this is a piece of its own). */
export const TEXT_PIECE_BYTES = 256 * 1024 * 1024;

/** Cuts text.bin into pieces of whole blocks: [first block, byte start, byte end] each. */
export function textPieces(ends: Float64Array, maxBytes = TEXT_PIECE_BYTES): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  let first = 0;
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    if (ends[i]! - start > maxBytes && i > first) {
      out.push([first, start, ends[i - 1]!]);
      first = i;
      start = ends[i - 1]!;
    }
  }
  if (ends.length > first || out.length === 0) out.push([first, start, ends.length ? ends[ends.length - 1]! : 0]);
  return out;
}

/**
 * A block of a loaded format-2 segment: its fields as values, its text read from the segment's bytes on
 * each access (a string per block would double the text's memory: V8 holds most of it as two-byte
 * strings). `toJSON` gives the plain block, so serialising one is unchanged.
 */
export class StoredBlock implements Block {
  readonly #texts: SegmentTexts;
  readonly #at: number;

  constructor(
    readonly block_id: string,
    readonly block_index: number,
    readonly section_path: string,
    readonly token_count: number,
    readonly location: BlockLocation,
    texts: SegmentTexts,
    at: number,
  ) {
    this.#texts = texts;
    this.#at = at;
  }

  get text(): string {
    return this.#texts.text(this.#at);
  }

  toJSON(): Block {
    return { block_id: this.block_id, block_index: this.block_index, section_path: this.section_path, text: this.text, token_count: this.token_count, location: this.location };
  }
}

/**
 * The table's section paths by number, each made when first asked for and then shared by all its
 * blocks (a 1M-block table has 100,000: making them all was a 5 ms step of its load).
 */
export function sectionNames(t: BlockTable): (section: number) => string {
  const names = new Array<string | undefined>(t.sections.length);
  return (section) => (names[section] ??= t.sections.at(section)!);
}

/** Where block `i` is (its kind and numbers as locationNumbers stored them). */
export function blockLocation(t: BlockTable, i: number): BlockLocation {
  const a = t.locA[i]!;
  const b = t.locB[i]!;
  const c = t.locC[i]!;
  switch (LOCATION_KINDS[t.locKind[i]!]!) {
    case 'lines':
      return { kind: 'lines', line_start: a, line_end: b };
    case 'page': {
      const from = t.boxStarts?.[i] ?? 0;
      const to = t.boxStarts?.[i + 1] ?? 0;
      if (to === from) return { kind: 'page', page: a };
      // f32 back to the tenths the parser wrote, so a block reads back as it was made.
      const n = (k: number) => Math.round(t.boxes![k]! * 10) / 10;
      return { kind: 'page', page: a, boxes: Array.from({ length: to - from }, (_, r): PageRegion => [n(4 * (from + r)), n(4 * (from + r) + 1), n(4 * (from + r) + 2), n(4 * (from + r) + 3)]) };
    }
    case 'paragraphs':
      return { kind: 'paragraphs', first: a, last: b };
    case 'chapter':
      return { kind: 'chapter', chapter: a, first: b, last: c };
    case 'slide':
      return { kind: 'slide', slide: a, first: b, last: c };
  }
}

/** Block `i` of a table as a StoredBlock (`names`: sectionNames of the table). */
export function storedBlock(t: BlockTable, i: number, names: (section: number) => string, texts: SegmentTexts): StoredBlock {
  return new StoredBlock(t.ids.at(i)!, t.blockIndex[i]!, names(t.section[i]!), t.tokens[i]!, blockLocation(t, i), texts, i);
}
