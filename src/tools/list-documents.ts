import { z } from 'zod';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { type Tool, fold } from './tool';

export const ListDocumentsInput = z
  .object({
    source: z.string().trim().min(1).optional().describe('canonical source name or one of its aliases (case-insensitive)'),
    lang: z.enum(['zh', 'en', 'ja', 'mixed', 'und']).optional(),
    title_contains: z.string().trim().min(1).optional().describe('text the title contains (titles only, not content)'),
  })
  .strict()
  .meta({ examples: [{ title_contains: 'cell' }, { source: 'biology', lang: 'en' }] });
export type ListDocumentsInput = z.infer<typeof ListDocumentsInput>;

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

export const listDocuments: Tool<typeof ListDocumentsInput> = {
  name: 'list_documents',
  description:
    'List documents in the collection, optionally filtered by source, language or a title fragment. Locates documents and their doc_ids; finding none says nothing about what the documents contain.',
  input: ListDocumentsInput,
  scope: (input, snapshot, questionScope) => selected(input, snapshot, questionScope) ?? 'collection_empty',
  async run(input, { snapshot, scope }) {
    const set = selected(input, snapshot, scope);
    if (!set) return { documents: [], total: 0, empty_reason: 'collection_empty' };
    const docs = set
      .map((i) => snapshot.documents[i]!)
      .map((d) => ({ doc_id: d.doc_id, title: d.title, source_label: d.source_label, aliases: d.aliases, lang: d.lang, sections: d.sections.length, blocks: d.blocks.length }))
      .sort((a, b) => cmp(a.source_label, b.source_label) || cmp(a.title, b.title) || cmp(a.doc_id, b.doc_id));
    return docs.length ? { documents: docs, total: docs.length } : { documents: [], total: 0, empty_reason: 'no_match' };
  },
};
