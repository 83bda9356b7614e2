import { type TakeBuffer, freshBuffer } from './buffer-pool';
import { keywordTokens } from './keyword-tokenizer';
import type { Document } from '../../shared/document';
import { PREAMBLE_TITLE } from '../blocks/parsed-document';
import type { TermTable } from './term-table';

/**
 * An inverted index over blocks (0..n-1 in global block order), stored as flat typed arrays so it loads
 * without parsing: terms sorted, postings by term (block ids ascending) with the term's frequency in the
 * block's text and in its headings (a posting for a term in either). Term frequency is kept (Orama
 * de-duplicates tokens and loses it).
 */
export interface Bm25Data {
  terms: TermTable;
  /** postings of term t are [offsets[t], offsets[t+1]) */
  offsets: Uint32Array;
  blocks: Uint32Array;
  tfs: Uint16Array;
  headTfs: Uint16Array;
  docLengths: Uint32Array;
  headLengths: Uint32Array;
}

/**
 * What a block's headings field holds: its document's title and its section path, the title left out
 * where the path starts with it already (a page titled by its first heading) and the `(preamble)`
 * placeholder left out (it is no heading the writer wrote).
 */
export function keywordHeading(title: string, sectionPath: string): string {
  const path = sectionPath === PREAMBLE_TITLE ? '' : sectionPath;
  if (path === title || path.startsWith(`${title} > `)) return path;
  return path ? `${title} > ${path}` : title;
}

/** The two fields of every block of some documents, in their order: what a segment's index is built from. */
export function keywordFields(documents: readonly Document[]): { texts: string[]; headings: string[] } {
  const texts: string[] = [];
  const headings: string[] = [];
  for (const d of documents)
    for (const b of d.blocks) {
      texts.push(b.text);
      headings.push(keywordHeading(d.title, b.section_path));
    }
  return { texts, headings };
}

interface Building {
  /** Term → id, in order of first appearance; postings as parallel typed arrays, in block order (see post). */
  termIds: Map<string, number>;
  terms: string[];
  postTerm: Uint32Array;
  postBlock: Uint32Array;
  postFreq: Uint32Array;
  posts: number;
  docLengths: Uint32Array;
  headLengths: Uint32Array;
  blocks: number;
  /** The blocks of a section share their headings: the last one's counts are kept, not worked out again. */
  lastHeading: string;
  lastHead: { tf: Map<string, number>; length: number };
}

function counts(tokens: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

function grown<T extends Uint32Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new Uint32Array(Math.max(need, a.length * 2));
  next.set(a);
  return next as T;
}

/**
 * A posting while building: its term's id, its block, and the text frequency in the low 16 bits with
 * the headings' (at most 16,383, which no title reaches) above them. Three typed arrays, not a list per
 * term: 12 bytes a posting instead of about 40, a batch of 8,192 blocks (1.2 million postings) building
 * in a third of the memory.
 */
const HEAD_TF_MAX = 16383;
function post(s: Building, t: string, block: number, n: number, h: number): void {
  let id = s.termIds.get(t);
  if (id === undefined) {
    id = s.terms.length;
    s.termIds.set(t, id);
    s.terms.push(t);
  }
  if (s.posts === s.postTerm.length) {
    s.postTerm = grown(s.postTerm, s.posts + 1);
    s.postBlock = grown(s.postBlock, s.posts + 1);
    s.postFreq = grown(s.postFreq, s.posts + 1);
  }
  s.postTerm[s.posts] = id;
  s.postBlock[s.posts] = block;
  s.postFreq[s.posts++] = Math.min(n, 65535) + Math.min(h, HEAD_TF_MAX) * 65536;
}

function addBlock(s: Building, text: string, heading: string): void {
  const block = s.blocks++;
  const toks = keywordTokens(text);
  if (heading !== s.lastHeading) {
    const headToks = keywordTokens(heading);
    s.lastHeading = heading;
    s.lastHead = { tf: counts(headToks), length: headToks.length };
  }
  const head = s.lastHead.tf;
  s.docLengths = grown(s.docLengths, s.blocks);
  s.headLengths = grown(s.headLengths, s.blocks);
  s.docLengths[block] = toks.length;
  s.headLengths[block] = s.lastHead.length;
  const tf = counts(toks);
  for (const [t, n] of tf) post(s, t, block, n, head.size ? (head.get(t) ?? 0) : 0);
  for (const [t, h] of head) if (!tf.has(t)) post(s, t, block, 0, h);
}

function start(n: number): Building {
  const cap = Math.max(1024, n * 64);
  return {
    termIds: new Map(),
    terms: [],
    postTerm: new Uint32Array(cap),
    postBlock: new Uint32Array(cap),
    postFreq: new Uint32Array(cap),
    posts: 0,
    docLengths: new Uint32Array(n),
    headLengths: new Uint32Array(n),
    blocks: 0,
    lastHeading: '',
    lastHead: { tf: new Map(), length: 0 },
  };
}

/** `headings[i]` is block i's headings field (keywordHeading); none given: every block has none. */
export function buildBm25(texts: readonly string[], headings?: readonly string[]): Bm25Data {
  const s = start(texts.length);
  texts.forEach((text, block) => addBlock(s, text, headings?.[block] ?? ''));
  return finish(s);
}

/** The same index, its blocks given a few at a time (a worker adds each slice as it arrives). */
export class Bm25Builder {
  private s = start(0);
  add(texts: readonly string[], headings: readonly string[]): void {
    texts.forEach((text, i) => addBlock(this.s, text, headings[i] ?? ''));
  }
  /** `take` gives the buffers of the arrays handed out (default: fresh ones). */
  finish(take?: TakeBuffer): Bm25Data {
    return finish(this.s, take);
  }
  /**
   * Empty again for the next batch, keeping the postings' arrays (their capacity grown to the largest
   * batch): a builder per batch doubled its way up to 12 MB of them each time, and the worker held
   * 30–75 MB of those discarded arrays between its collections. What finish returned stays valid.
   */
  reset(): void {
    const { postTerm, postBlock, postFreq } = this.s;
    this.s = { ...start(0), postTerm, postBlock, postFreq };
  }
  /** Postings it can hold before its arrays grow. */
  get capacity(): number {
    return this.s.postTerm.length;
  }
}

const YIELD_EVERY = 2000;

/**
 * The same index, built in slices that give the event loop back between them (the extension host must
 * not freeze on a large collection), and cancellable between slices.
 */
export async function buildBm25Yielding(texts: readonly string[], headings?: readonly string[], signal?: AbortSignal): Promise<Bm25Data> {
  const s = start(texts.length);
  for (let first = 0; first < texts.length; first += YIELD_EVERY) {
    signal?.throwIfAborted();
    const end = Math.min(texts.length, first + YIELD_EVERY);
    for (let b = first; b < end; b++) addBlock(s, texts[b]!, headings?.[b] ?? '');
    await new Promise<void>((r) => setImmediate(r));
  }
  return finish(s);
}

/** Terms sorted (code-unit order), and each one's postings together, in block order: a counting sort of the postings by term. */
function finish(s: Building, take: TakeBuffer = freshBuffer): Bm25Data {
  const { terms, posts, postTerm, postBlock, postFreq } = s;
  const order = terms.map((_, i) => i).sort((a, b) => (terms[a]! < terms[b]! ? -1 : terms[a]! > terms[b]! ? 1 : 0));
  const rank = new Uint32Array(terms.length);
  order.forEach((id, r) => (rank[id] = r));
  const offsets = new Uint32Array(take(4 * (terms.length + 1)), 0, terms.length + 1).fill(0);
  for (let i = 0; i < posts; i++) offsets[rank[postTerm[i]!]! + 1]!++;
  for (let r = 0; r < terms.length; r++) offsets[r + 1]! += offsets[r]!;
  const cursor = offsets.slice(0, terms.length);
  const blocks = new Uint32Array(take(4 * posts), 0, posts);
  const tfs = new Uint16Array(take(2 * posts), 0, posts);
  const headTfs = new Uint16Array(take(2 * posts), 0, posts);
  for (let i = 0; i < posts; i++) {
    const p = cursor[rank[postTerm[i]!]!]!++;
    blocks[p] = postBlock[i]!;
    const f = postFreq[i]!;
    tfs[p] = f & 0xffff;
    headTfs[p] = f >>> 16;
  }
  return { terms: order.map((id) => terms[id]!), offsets, blocks, tfs, headTfs, docLengths: s.docLengths.subarray(0, s.blocks), headLengths: s.headLengths.subarray(0, s.blocks) };
}
