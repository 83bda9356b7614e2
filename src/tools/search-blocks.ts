import { z } from 'zod';
import { blockPriors } from '../index/search/block-priors';
import { hybridSearch } from '../index/search/hybrid-search';
import { queryRuns } from '../index/search/keyword-tokenizer';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { briefOf, docsPhrase, documentsOf, inBoth, plural, quoted, scopeData, summaryOf, withWords } from './step-summary';
import { BlockView, EmptyReason, type StepWords, type Tool, ToolFailure, blockView, docSet } from './tool';

export const SearchBlocksInput = z
  .object({
    query: z.string().trim().min(1).describe('what to look for, in words'),
    doc_ids: z.array(z.string().min(1)).min(1).optional().describe('limit to these documents; absent = the whole collection'),
  })
  .strict()
  .meta({ examples: [{ query: 'what does the cell membrane do' }, { query: '光合作用 暗反应', doc_ids: ['d1a2b3c4d5e'] }] });
export type SearchBlocksInput = z.infer<typeof SearchBlocksInput>;

export const SEARCH_TOP_K = 5;

export const SearchBlocksOutput = z.object({
  /** How it ranked: keywords and meaning, or keywords alone (a snapshot without embeddings); null on an empty collection. */
  mode: z.enum(['hybrid', 'keyword_only']).nullable(),
  blocks: z.array(BlockView),
  empty_reason: EmptyReason.optional(),
});
export type SearchBlocksOutput = z.infer<typeof SearchBlocksOutput>;

const words: StepWords = {
  scope: (s) => inBoth((lang) => (lang === 'zh' ? `在${docsPhrase(s.documents, lang)}中搜索${quoted(s.text ?? '')}` : `Searching ${docsPhrase(s.documents, lang)} for ${quoted(s.text ?? '')}`)),
  outcome: (_s, o) => ({
    words: o.blocks === 0 ? { en: 'nothing found', zh: '未找到' } : { en: plural(o.blocks, 'block'), zh: `${o.blocks} 个块` },
    checked: null,
    covers: null,
    // Searches are candidates, not a scope: the release counts them ("searched 3 ways").
    tally: { one: { en: 'searched 1 way', zh: '检索了 1 种方式' }, many: { en: 'searched {n} ways', zh: '检索了 {n} 种方式' } },
  }),
};

/** A mask over global block numbers covering the given documents' ranges. */
export function docMask(ranges: ReadonlyArray<readonly [number, number]>, docs: readonly number[], size: number): (b: number) => boolean {
  const mask = new Uint8Array(size);
  for (const d of docs) mask.fill(1, ranges[d]![0], ranges[d]![1]);
  return (b) => mask[b] === 1;
}

/** A snapshot built without embeddings (or without vectors) is searched by keywords alone. */
const isKeywordOnly = (snapshot: LoadedSnapshot) => snapshot.manifest.embedding.provider === 'none' || snapshot.vectors === null;

export const searchBlocks: Tool<typeof SearchBlocksInput, typeof SearchBlocksOutput> = {
  name: 'search_blocks',
  description:
    'Find the 5 blocks that best match a query (fixed hybrid keyword + semantic ranking). Candidates, not a complete list: not finding something here does not show the documents lack it.',
  input: SearchBlocksInput,
  output: SearchBlocksOutput,
  // The documents as a set; the query as the keyword side reads it and, with vectors, exactly as it is embedded.
  scope(input, snapshot, questionScope) {
    const docs = docSet(snapshot, input.doc_ids, questionScope);
    if (snapshot.documents.length === 0) return 'collection_empty';
    return { docs, keyword: queryRuns(input.query), embedded: isKeywordOnly(snapshot) ? null : input.query };
  },
  async run(input, { snapshot, embedQuery, keywordOnly: hostKeywordOnly, scope, signal, onTrace }) {
    // An unknown doc_id fails the whole call before anything else, an empty collection included.
    const docs = docSet(snapshot, input.doc_ids, scope);
    if (snapshot.documents.length === 0) return { mode: null, blocks: [], empty_reason: 'collection_empty' };
    const allowed = docs === 'all' ? undefined : docMask(snapshot.docRanges, docs, snapshot.docRanges.at(-1)?.[1] ?? 0);
    const keywordOnly = isKeywordOnly(snapshot) || hostKeywordOnly === true;
    let queryVector: Float32Array | null = null;
    if (!keywordOnly) {
      // Never a silent keyword fallback: without the query embedding the search does not run.
      if (!embedQuery) throw new ToolFailure('upstream_unavailable', 'no embedding endpoint is configured for this snapshot’s model', false);
      try {
        queryVector = (await embedQuery(input.query, signal)).vector;
      } catch (err) {
        if (signal?.aborted) throw err;
        if (err instanceof ToolFailure) throw err;
        // Not retryable: the embedding client has already applied the retry policy (a second retry
        // here made one query up to 4 requests).
        throw new ToolFailure('upstream_unavailable', `the query could not be embedded: ${err instanceof Error ? err.message : String(err)}`, false);
      }
    }
    const hits = hybridSearch(snapshot.bm25, keywordOnly ? null : snapshot.vectors, input.query, queryVector, SEARCH_TOP_K, allowed, blockPriors(snapshot.documents, snapshot.docRanges));
    const blocks = hits.map((h) => blockView(snapshot, h.block));
    onTrace?.({
      tool: 'search_blocks',
      detail: { mode: keywordOnly ? 'keyword_only' : 'hybrid', hits: hits.map((h, i) => ({ ref: blocks[i]!.ref, fused: h.fused, bm25: h.bm25, cosine: h.cosine, bm25_rank: h.bm25_rank, vector_rank: h.vector_rank, rank_score: h.rank_score })) },
    });
    const mode = keywordOnly ? 'keyword_only' : 'hybrid';
    return blocks.length ? { mode, blocks } : { mode, blocks: [], empty_reason: 'no_match' };
  },
  describe: (input, view) => withWords(words, scopeData('search_blocks', documentsOf(view, input.doc_ids), { text: input.query ?? null })),
  summarize(input, output, view) {
    return summaryOf(words, this.describe(input, view), { blocks: output.blocks.length }, output.empty_reason, { returned: output.blocks, briefs: output.blocks.map((b) => briefOf(b, b.text)) });
  },
  words,
};
