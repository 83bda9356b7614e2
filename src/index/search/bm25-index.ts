import { queryTerms } from './keyword-tokenizer';
import { BM25_K1, type Norms, type PreparedNorms, normSteps } from './bm25-norms';
import { balanceMixed, idfOf } from './mixed-query';
import type { Bm25Data } from './bm25-build';
import type { TermTable } from './term-table';
import type { KeywordHits, KeywordSide } from './search-sides';
import { type TopKIndex, keywordTopK, mappingRuns } from './bm25-topk';

/** The BM25F parameters (chosen and measured where they are set). */
export { BM25_B, BM25_K1, HEADING_WEIGHT } from './bm25-norms';

import type { PostingList } from './search-sides';
export type { PostingList } from './search-sides';

/**
 * An index as the search reads it: the terms and field lengths at hand, a term's postings on request
 * (from the arrays of a Bm25Data, or read from disk one term at a time for a format-2 segment:
 * segment-reader.ts), so no index needs its postings in memory.
 */
export interface KeywordData {
  terms: TermTable;
  docLengths: Uint32Array;
  headLengths: Uint32Array;
  /** How many postings term `id` has in this part. */
  count(id: number): number;
  /**
   * Term `id`'s postings. A list read from disk may be reused for another list once the next query
   * begins (postings-cache.ts): it is good for the query it was read in.
   */
  postings(id: number): PostingList;
  /** A query begins: lists read for earlier queries may be reused from now on. */
  begin?(): void;
}

/** A Bm25Data as KeywordData (views on its arrays). */
export function inMemoryKeyword(d: Bm25Data): KeywordData {
  return {
    terms: d.terms,
    docLengths: d.docLengths,
    headLengths: d.headLengths,
    count: (id) => d.offsets[id + 1]! - d.offsets[id]!,
    postings: (id) => {
      const s = d.offsets[id]!;
      const e = d.offsets[id + 1]!;
      return { blocks: d.blocks.subarray(s, e), tfs: d.tfs.subarray(s, e), headTfs: d.headTfs.subarray(s, e) };
    },
  };
}

/**
 * One segment's index as part of a snapshot: its local block numbers map to the snapshot's global ones;
 * -1 marks a block of a document the snapshot no longer holds (replaced or removed). null: the identity.
 */
export interface Bm25Part {
  data: KeywordData;
  toGlobal: Int32Array | null;
}

/** Terms are stored sorted: a binary search finds one without building a map at load time. */
function termId(terms: TermTable, term: string): number | undefined {
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = terms.at(mid)!;
    if (t === term) return mid;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** A query term in every part: its id there, its live document frequency, postings already read. */
interface Lookup {
  ids: Array<number | undefined>;
  df: number;
  lists: Array<PostingList | undefined>;
}

/**
 * BM25F (Robertson & Zaragoza) over a snapshot's segments, with two fields per block: text and headings.
 * A term's frequencies in the two, each divided by its field's length normalisation, the headings'
 * weighted by HEADING_WEIGHT, make one frequency x; a block scores Σ weight · idf · x(k1 + 1)/(k1 + x)
 * over the query's terms (queryTerms), so a term in a section's title saturates with the same term in
 * its text and cannot outvote the query's other terms. A block without headings scores textbook BM25
 * (times each term's weight).
 * N, document frequencies and the average lengths count live blocks only, so a snapshot made of several
 * segments scores every block exactly as one index built over the same blocks would (same numbers, same
 * order of additions).
 */
export class Bm25Index implements KeywordSide {
  readonly size: number;
  private readonly parts: readonly Bm25Part[];
  private readonly norms: readonly Norms[];
  private readonly allLive: readonly boolean[];

  constructor(data: Bm25Data);
  constructor(parts: readonly Bm25Part[], size: number, prepared?: PreparedNorms);
  constructor(data: Bm25Data | readonly Bm25Part[], size?: number, prepared?: PreparedNorms) {
    this.parts = Array.isArray(data) ? data : [{ data: inMemoryKeyword(data as Bm25Data), toGlobal: null }];
    this.size = size ?? (data as Bm25Data).docLengths.length;
    if (!prepared) {
      const steps = normSteps(this.parts, this.size);
      let r = steps.next();
      while (!r.done) r = steps.next();
      prepared = r.value;
    }
    this.norms = prepared.norms;
    this.allLive = prepared.allLive;
  }

  /**
   * The same index, its per-block norms worked out in slices (`tick` between them): a million blocks'
   * norms are three passes over a million numbers, one step too long for an extension host that must
   * answer while a snapshot loads.
   */
  static async load(parts: readonly Bm25Part[], size: number, tick: () => Promise<void>): Promise<Bm25Index> {
    const steps = normSteps(parts, size);
    let r = steps.next();
    while (!r.done) {
      await tick();
      r = steps.next();
    }
    return new Bm25Index(parts, size, r.value);
  }

  /** The top `k` blocks by score (score > 0; ties to the lower block), and any block's score. */
  search(query: string, k: number, allowed?: (block: number) => boolean): KeywordHits {
    const begun = this.begin();
    const terms = this.weighted(query).map(({ ids, lists, w, postings }) => ({
      w,
      postings,
      list: (part: number) => {
        const id = ids[part];
        if (id === undefined) return undefined;
        // The hits' scoreOf asked after a later query began: the lists it read then may be others' now.
        if (this.queries !== begun) return this.parts[part]!.data.postings(id);
        return (lists[part] ??= this.parts[part]!.data.postings(id));
      },
    }));
    // The same ranking and scores as topK(this.score(query)), without walking every posting (bm25-topk.ts).
    return keywordTopK(this.topKIndex(), terms, k, allowed);
  }

  /** Queries begun: the lists a query read are good until the next one begins. */
  private queries = 0;
  private begin(): number {
    for (const { data } of this.parts) data.begin?.();
    return ++this.queries;
  }

  private topK: TopKIndex | null = null;
  /** What keywordTopK reads of this index; its accumulator and block locations made on first search. */
  private topKIndex(): TopKIndex {
    if (this.topK) return this.topK;
    const { size, parts } = this;
    let scratch: { acc: Float32Array; touched: Int32Array } | null = null;
    const identity = parts.length === 1 && parts[0]!.toGlobal === null;
    let partOf: Uint16Array | null = null;
    let localOf: Int32Array | null = null;
    const locate = () => {
      if (partOf) return;
      partOf = new Uint16Array(size);
      localOf = new Int32Array(size);
      parts.forEach(({ toGlobal, data }, i) => {
        for (let local = 0; local < data.docLengths.length; local++) {
          const g = toGlobal ? toGlobal[local]! : local;
          if (g < 0) continue;
          partOf![g] = i;
          localOf![g] = local;
        }
      });
    };
    this.topK = {
      size,
      k1: BM25_K1,
      parts: parts.map(({ toGlobal }, i) => ({ toGlobal, runs: toGlobal && mappingRuns(toGlobal), text: this.norms[i]!.text, head: this.norms[i]!.head, text32: Float32Array.from(this.norms[i]!.text), head32: Float32Array.from(this.norms[i]!.head) })),
      partOf: (b) => (identity ? 0 : (locate(), partOf![b]!)),
      localOf: (b) => (identity ? b : (locate(), localOf![b]!)),
      scratch: () => (scratch ??= { acc: new Float32Array(size), touched: new Int32Array(size) }),
    };
    return this.topK;
  }

  /**
   * The query's terms that some live block holds, in the query's order (queryTerms), each with its
   * BM25F weight w = weight · idf · (k1 + 1), its id in each part, its postings read so far, and how many.
   * idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
   */
  private weighted(query: string): Array<Lookup & { w: number; postings: number }> {
    const n = this.size;
    const looked = new Map<string, Lookup>();
    const find = (term: string) => {
      let l = looked.get(term);
      if (!l) looked.set(term, (l = this.lookup(term)));
      return l;
    };
    const terms = queryTerms(query, (t) => find(t).df > 0).map((t) => ({ ...t, idf: idfOf(n, find(t.term).df) }));
    const out: Array<Lookup & { w: number; postings: number }> = [];
    for (const { term, weight, idf } of balanceMixed(terms)) {
      const l = find(term);
      if (l.df === 0) continue;
      const postings = l.ids.reduce<number>((sum, id, i) => (id === undefined ? sum : sum + this.parts[i]!.data.count(id)), 0);
      out.push({ ...l, w: weight * idf * (BM25_K1 + 1), postings });
    }
    return out;
  }

  /**
   * The term's id in each part (undefined: absent), its document frequency over live blocks, and the
   * postings read to count it (a part with replaced blocks), kept for scoring.
   */
  private lookup(term: string): Lookup {
    let df = 0;
    const lists: Array<PostingList | undefined> = [];
    const ids = this.parts.map(({ data, toGlobal }, i) => {
      const id = termId(data.terms, term);
      if (id === undefined) return undefined;
      if (!toGlobal || this.allLive[i]) df += data.count(id);
      else {
        const { blocks } = (lists[i] = data.postings(id));
        for (let p = 0; p < blocks.length; p++) if (toGlobal[blocks[p]!]! >= 0) df++;
      }
      return id;
    });
    return { ids, df, lists };
  }

  /**
   * BM25F scores of every block for the query's weighted terms (0 where no term matches); `allowed`
   * limits the blocks considered (document frequencies stay the collection's).
   */
  score(query: string, allowed?: (block: number) => boolean): Float64Array {
    const scores = new Float64Array(this.size);
    this.begin();
    for (const { ids, lists, w } of this.weighted(query)) {
      this.parts.forEach(({ data, toGlobal }, i) => {
        const id = ids[i];
        if (id === undefined) return;
        const { blocks, tfs, headTfs } = lists[i] ?? data.postings(id);
        const { text, head } = this.norms[i]!;
        for (let p = 0, end = blocks.length; p < end; p++) {
          const local = blocks[p]!;
          const b = toGlobal ? toGlobal[local]! : local;
          if (b < 0 || (allowed && !allowed(b))) continue;
          const x = tfs[p]! * text[local]! + headTfs[p]! * head[local]!;
          scores[b]! += (w * x) / (BM25_K1 + x);
        }
      });
    }
    return scores;
  }
}
