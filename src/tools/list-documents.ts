import { z } from 'zod';
import { type Tool, fold } from './tool';

export const ListDocumentsInput = z
  .object({
    source: z.string().trim().min(1).optional().describe('canonical source name or one of its aliases (case-insensitive)'),
    lang: z.enum(['zh', 'en', 'ja', 'mixed', 'und']).optional(),
    title_contains: z.string().trim().min(1).optional().describe('text the title contains (titles only, not content)'),
  })
  .strict();
export type ListDocumentsInput = z.infer<typeof ListDocumentsInput>;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const listDocuments: Tool<typeof ListDocumentsInput> = {
  name: 'list_documents',
  description:
    'List documents in the collection, optionally filtered by source, language or a title fragment. Locates documents and their doc_ids; finding none says nothing about what the documents contain.',
  input: ListDocumentsInput,
  async run(input, { snapshot, scope }) {
    if (snapshot.documents.length === 0) return { documents: [], total: 0, empty_reason: 'collection_empty' };
    const source = input.source === undefined ? undefined : fold(input.source);
    const title = input.title_contains === undefined ? undefined : fold(input.title_contains);
    const inScope = scope ? new Set(scope) : null;
    const docs = snapshot.documents
      .filter((d) => inScope === null || inScope.has(d.doc_id))
      .filter((d) => source === undefined || fold(d.source_label) === source || d.aliases.some((a) => fold(a) === source))
      .filter((d) => input.lang === undefined || d.lang === input.lang)
      .filter((d) => title === undefined || fold(d.title).includes(title))
      .map((d) => ({ doc_id: d.doc_id, title: d.title, source_label: d.source_label, aliases: d.aliases, lang: d.lang, sections: d.sections.length, blocks: d.blocks.length }))
      .sort((a, b) => cmp(a.source_label, b.source_label) || cmp(a.title, b.title) || cmp(a.doc_id, b.doc_id));
    return docs.length ? { documents: docs, total: docs.length } : { documents: [], total: 0, empty_reason: 'no_match' };
  },
};
