import { z } from 'zod';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { sectionCount } from '../index/store/document-outlines';
import { documentsOf, inBoth, plural, scopeData, summaryOf, withWords } from './step-summary';
import { EmptyReason, type StepWords, type Tool, fold } from './tool';

const LANGS = ['zh', 'en', 'ja', 'mixed', 'und'] as const;

export const ListDocumentsInput = z
  .object({
    source: z.string().trim().min(1).optional().describe('canonical source name or one of its aliases (case-insensitive)'),
    lang: z.enum(LANGS).optional(),
    title_contains: z.string().trim().min(1).optional().describe('text the title contains (titles only, not content)'),
  })
  .strict()
  .meta({ examples: [{ title_contains: 'cell' }, { source: 'biology', lang: 'en' }] });
export type ListDocumentsInput = z.infer<typeof ListDocumentsInput>;

export const ListDocumentsOutput = z.object({
  documents: z.array(
    z.object({
      doc_id: z.string(),
      title: z.string(),
      source_label: z.string(),
      aliases: z.array(z.string()),
      lang: z.enum(LANGS),
      /** How many sections and blocks the document has. */
      sections: z.number().int(),
      blocks: z.number().int(),
    }),
  ),
  total: z.number().int(),
  empty_reason: EmptyReason.optional(),
});
export type ListDocumentsOutput = z.infer<typeof ListDocumentsOutput>;

const FILTERS = ['source', 'lang', 'title_contains'] as const;

const words: StepWords = {
  scope: (s) => {
    const filters = Object.entries(s.filters);
    return {
      en: `Listing documents${filters.length ? ` (${filters.map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`,
      zh: `列出文档${filters.length ? `（${filters.map(([k, v]) => `${k}=${v}`).join('，')}）` : ''}`,
    };
  },
  outcome: (_s, o) => ({
    words: inBoth((lang) => (o.documents === 0 ? (lang === 'zh' ? '没有匹配的文档' : 'no document matched') : lang === 'zh' ? `${o.documents} 篇文档` : plural(o.documents, 'document'))),
    checked: null,
    covers: null,
    tally: null,
  }),
};

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The documents the filters select (indices, in collection order), or null on an empty collection. The
 * payload is a function of this set alone (it echoes no filter), so it is also the request's scope: two
 * filters that select the same documents are one request. Metadata only: no text is read. A scoped
 * question lists only its scope's documents.
 */
function selected(input: ListDocumentsInput, snapshot: LoadedSnapshot, questionScope?: readonly string[]): number[] | null {
  if (snapshot.documents.length === 0) return null;
  const inScope = questionScope ? new Set(questionScope) : null;
  const source = input.source === undefined ? undefined : fold(input.source);
  const title = input.title_contains === undefined ? undefined : fold(input.title_contains);
  const out: number[] = [];
  snapshot.documents.forEach((d, i) => {
    if (inScope !== null && !inScope.has(d.doc_id)) return;
    if (source !== undefined && fold(d.source_label) !== source && !d.aliases.some((a) => fold(a) === source)) return;
    if (input.lang !== undefined && d.lang !== input.lang) return;
    if (title !== undefined && !fold(d.title).includes(title)) return;
    out.push(i);
  });
  return out;
}

export const listDocuments: Tool<typeof ListDocumentsInput, typeof ListDocumentsOutput> = {
  name: 'list_documents',
  description:
    'List documents in the collection, optionally filtered by source, language or a title fragment. Locates documents and their doc_ids; finding none says nothing about what the documents contain.',
  input: ListDocumentsInput,
  output: ListDocumentsOutput,
  scope: (input, snapshot, questionScope) => selected(input, snapshot, questionScope) ?? 'collection_empty',
  async run(input, { snapshot, scope }) {
    const set = selected(input, snapshot, scope);
    if (!set) return { documents: [], total: 0, empty_reason: 'collection_empty' };
    const docs = set
      .map((i) => {
        const d = snapshot.documents[i]!;
        // Counts without reading: d.blocks would make every listed document's blocks, d.sections read
        // every outline from its file (at 1M blocks, 3.5 s and 0.8 s on the extension host).
        const [start, end] = snapshot.docRanges[i]!;
        return { doc_id: d.doc_id, title: d.title, source_label: d.source_label, aliases: d.aliases, lang: d.lang, sections: sectionCount(d), blocks: end - start };
      })
      .sort((a, b) => cmp(a.source_label, b.source_label) || cmp(a.title, b.title) || cmp(a.doc_id, b.doc_id));
    return docs.length ? { documents: docs, total: docs.length } : { documents: [], total: 0, empty_reason: 'no_match' };
  },
  // Its scope is the collection (or the question's scope) and the filters as given.
  describe(input, view) {
    const filters: Record<string, string> = {};
    for (const k of FILTERS) if (typeof input[k] === 'string') filters[k] = input[k];
    return withWords(words, scopeData('list_documents', documentsOf(view, undefined), { filters }));
  },
  summarize(input, output, view) {
    return summaryOf(words, this.describe(input, view), { documents: output.documents.length }, output.empty_reason, { doc_ids: output.documents.map((d) => d.doc_id) });
  },
  words,
};
