/**
 * Orama 3 behind DocQA's search sides (src/index/search/search-sides.ts), configured at its best, for
 * the orama group: a CJK-capable tokenizer (its own `@orama/tokenizers/mandarin`, the same with case and
 * width folded, or DocQA's plugged in), its own BM25 and vector scan, its own hybrid mode, and each of
 * its persistence plugin's formats loaded the way that keeps the tokenizer: create() with the schema and
 * tokenizer, then load() the decoded data (the plugin's restore() makes a placeholder schema and drops
 * a custom tokenizer).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { create, insertMultiple, load, search, type Orama, type RawData } from '@orama/orama';
import { persist } from '@orama/plugin-data-persistence';
import { createTokenizer } from '@orama/tokenizers/mandarin';
import { keywordTokens, queryTerms } from '../src/index/search/keyword-tokenizer';
import type { KeywordHits, KeywordSide, RankedBlock, VectorSide } from '../src/index/search/search-sides';

/** The tokenizer configurations tried, in order of preference on equal recall. */
export const TOKENIZERS = ['orama-default', 'orama-mandarin', 'orama-mandarin-folded', 'docqa', 'docqa-whole-terms'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

/** The formats of @orama/plugin-data-persistence 3.1.18. */
export const FORMATS = ['json', 'binary', 'dpack', 'seqproto'] as const;
export type Format = (typeof FORMATS)[number];

type Tokenize = (raw: string, language?: string, prop?: string, withCache?: boolean) => string[];
interface Tokenizer {
  language: string;
  normalizationCache: Map<string, string>;
  tokenize: Tokenize;
}

/** No token holds it: keywordTokens keeps letters, marks and digits only. */
const WHOLE_TERM_MARK = '\u0001';

function tokenizer(name: TokenizerName): Tokenizer | undefined {
  switch (name) {
    case 'orama-default':
      return undefined;
    case 'orama-mandarin':
      return createTokenizer() as unknown as Tokenizer;
    case 'orama-mandarin-folded': {
      // The segmenter does not lower-case ("deepseek" misses "DeepSeek"): fold first, as DocQA does.
      const t = createTokenizer() as unknown as Tokenizer;
      const inner = t.tokenize;
      return { ...t, tokenize: (raw, ...rest) => inner(typeof raw === 'string' ? raw.normalize('NFKC').toLowerCase() : raw, ...rest) };
    }
    case 'docqa':
    case 'docqa-whole-terms': {
      // Orama tokenizes a document's field with its property and a query without one. Documents: DocQA's
      // tokens, distinct (Orama counts a repeated token once per occurrence in its document frequency
      // and compares every pair, quadratic in the block's length). Queries: DocQA's query terms (a CJK run
      // by its bigrams; Orama cannot weigh them), every pair taken as known.
      // Orama matches a query token as a prefix of indexed ones (`the` finds `their`, `then`, ... and
      // adds each one's score); whole-terms ends every token with a mark, so a prefix is a whole term.
      const end = name === 'docqa-whole-terms' ? WHOLE_TERM_MARK : '';
      return {
        language: 'multi',
        normalizationCache: new Map(),
        tokenize: (raw, _language, prop) => (prop === undefined ? queryTerms(raw, () => true).map((t) => t.term + end) : [...new Set(keywordTokens(raw))].map((t) => t + end)),
      };
    }
  }
}

function schemaOf(dims: number): Record<string, string> {
  return dims > 0 ? { text: 'string', vector: `vector[${dims}]` } : { text: 'string' };
}

type Db = Orama<Record<string, string>>;

function emptyDb(dims: number, name: TokenizerName): Db {
  const t = tokenizer(name);
  return create({ schema: schemaOf(dims) as never, ...(t ? { components: { tokenizer: t } } : {}) }) as unknown as Db;
}

/** Blocks handed to insertMultiple at a time: the arrays of only this many vectors exist at once. */
const INSERT_CHUNK = 1000;

interface Hit {
  id: string;
  score: number;
}

/** Best first, ties to the lower block (Orama's own order on a tie is its insertion order). */
function ranked(hits: readonly Hit[]): RankedBlock[] {
  return hits.map((h) => ({ block: Number(h.id), score: h.score })).sort((a, b) => b.score - a.score || a.block - b.block);
}

export class OramaSides implements KeywordSide {
  private constructor(
    readonly db: Db,
    readonly size: number,
    readonly dims: number,
  ) {}

  /**
   * Block i is document id `i`. Orama wants a vector as a plain array and keeps the document object it
   * was given by reference: the array is dropped from the document after insertion, so the vectors live
   * once, in Orama's Float32 vector index, not a second time as float64 in its document store.
   */
  static build(texts: readonly string[], matrix: Float32Array | null, dims: number, name: TokenizerName): OramaSides {
    const db = emptyDb(matrix ? dims : 0, name);
    for (let first = 0; first < texts.length; first += INSERT_CHUNK) {
      const docs = texts.slice(first, first + INSERT_CHUNK).map((text, j): Record<string, unknown> => {
        const i = first + j;
        return matrix ? { id: String(i), text, vector: Array.from(matrix.subarray(i * dims, (i + 1) * dims)) } : { id: String(i), text };
      });
      insertMultiple(db, docs as never, INSERT_CHUNK);
      for (const d of docs) delete d.vector;
    }
    return new OramaSides(db, texts.length, matrix ? dims : 0);
  }

  /** An instance from one of the plugin's formats on disk: decoded as restore() decodes it, then loaded into a db made with the schema and tokenizer. */
  static async fromFile(format: Format, file: string, size: number, dims: number, name: TokenizerName): Promise<OramaSides> {
    const db = emptyDb(dims, name);
    load(db, await decode(format, fs.readFileSync(file)));
    return new OramaSides(db, size, dims);
  }

  /** Writes the instance in a format; a string result as UTF-8 (what the plugin's old persistToFile did). */
  async persistTo(format: Format, file: string): Promise<void> {
    const out = (await persist(this.db as never, format)) as string | Buffer | ArrayBuffer;
    fs.writeFileSync(file, out instanceof ArrayBuffer ? new Uint8Array(out) : out);
  }

  /**
   * Orama's full-text search (its BM25, prefix matching on its radix tree, any term matching). Orama
   * filters only by schema fields, so `allowed` takes its whole ranking and keeps the allowed blocks.
   */
  search(query: string, k: number, allowed?: (block: number) => boolean): KeywordHits {
    const r = search(this.db, { term: query, properties: ['text'], limit: allowed ? this.size : k }) as { hits: Hit[] };
    const top = ranked(r.hits)
      .filter((h) => !allowed || allowed(h.block))
      .slice(0, k);
    const scores = new Map(top.map((h) => [h.block, h.score]));
    return { ranked: top, scoreOf: (block) => scores.get(block) ?? null };
  }

  /** The `k` of highest cosine (similarity -1: every row, as DocQA's side ranks every row). */
  vectorSearch(vector: Float32Array, k: number, allowed?: (block: number) => boolean): RankedBlock[] {
    // includeVectors: without it a vector search sets the stored documents' vector field to null.
    const r = search(this.db, { mode: 'vector', vector: { value: vector, property: 'vector' }, similarity: -1, limit: allowed ? this.size : k, includeVectors: true } as never) as { hits: Hit[] };
    return ranked(r.hits)
      .filter((h) => !allowed || allowed(h.block))
      .slice(0, k);
  }

  /** Orama's own hybrid mode: each side's scores divided by its maximum, weighted 0.5 / 0.5. */
  hybrid(query: string, vector: Float32Array, k: number): number[] {
    const r = search(this.db, { mode: 'hybrid', term: query, properties: ['text'], vector: { value: vector, property: 'vector' }, similarity: -1, limit: k, includeVectors: true } as never) as { hits: Hit[] };
    return r.hits.map((h) => Number(h.id));
  }

  /** The VectorSide view: `search` above is the keyword side's. */
  get vectors(): VectorSide {
    return { search: (vector, k, allowed) => this.vectorSearch(vector, k, allowed) };
  }
}

/** The plugin's own dependencies, resolved from where the plugin is (they are not DocQA's). */
const pluginRequire = createRequire(require.resolve('@orama/plugin-data-persistence'));

async function decode(format: Format, data: Buffer): Promise<RawData> {
  switch (format) {
    case 'json':
      return JSON.parse(data.toString()) as RawData;
    case 'dpack':
      return (pluginRequire('dpack') as { parse(d: Buffer): RawData }).parse(data);
    case 'binary':
      return (pluginRequire('@msgpack/msgpack') as { decode(d: Buffer): RawData }).decode(Buffer.from(data.toString(), 'hex'));
    case 'seqproto': {
      // Not exported by the package: its own module, by path.
      const file = path.join(path.dirname(require.resolve('@orama/plugin-data-persistence')), 'seqproto.js');
      const seq = (await import(pathToFileURL(file).href)) as { deserializeOramaInstance(ab: ArrayBuffer): RawData };
      return seq.deserializeOramaInstance(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
    }
  }
}
