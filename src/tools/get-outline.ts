import { z } from 'zod';
import { docsPhrase, documentsOf, inBoth, plural, scopeData, summaryOf, withWords } from './step-summary';
import { type StepWords, type Tool, resolveDocs } from './tool';

export const GetOutlineInput = z
  .object({
    doc_ids: z.array(z.string().min(1)).min(1).describe('one or more doc_ids; repeats are read once, in the order given'),
  })
  .strict()
  .meta({ examples: [{ doc_ids: ['d1a2b3c4d5e'] }] });
export type GetOutlineInput = z.infer<typeof GetOutlineInput>;

export const GetOutlineOutput = z.object({
  documents: z.array(
    z.object({
      doc_id: z.string(),
      title: z.string(),
      source_label: z.string(),
      sections: z.array(
        z.object({
          path: z.string(),
          title: z.string(),
          ordinal: z.number().int(),
          depth: z.number().int(),
          direct_blocks: z.number().int(),
          subtree_blocks: z.number().int(),
          direct_tokens: z.number().int(),
          subtree_tokens: z.number().int(),
          first_sentence: z.string(),
        }),
      ),
    }),
  ),
});
export type GetOutlineOutput = z.infer<typeof GetOutlineOutput>;

const words: StepWords = {
  scope: (s) => inBoth((lang) => (lang === 'zh' ? `读取${docsPhrase(s.documents, lang)}的目录` : `Reading the outline of ${docsPhrase(s.documents, lang)}`)),
  outcome: (_s, o) => ({
    words: { en: `${plural(o.documents, 'outline')}, ${o.sections} sections`, zh: `${o.documents} 份目录，${o.sections} 个章节` },
    checked: null,
    covers: null,
    tally: null,
  }),
};

export const getOutline: Tool<typeof GetOutlineInput, typeof GetOutlineOutput> = {
  name: 'get_outline',
  description:
    'The section structure of documents: for each section its unique path, depth, block and token counts (direct and including subsections) and first sentence. Structure, not content; use the paths with list_blocks.',
  input: GetOutlineInput,
  output: GetOutlineOutput,
  // The documents in the order given (the payload keeps it), each once.
  scope: (input, snapshot, questionScope) => resolveDocs(snapshot, [...new Set(input.doc_ids)], questionScope),
  async run(input, { snapshot, scope }) {
    const docs = resolveDocs(snapshot, [...new Set(input.doc_ids)], scope).map((i) => snapshot.documents[i]!);
    return {
      documents: docs.map((d) => ({
        doc_id: d.doc_id,
        title: d.title,
        source_label: d.source_label,
        sections: d.sections.map((s) => ({
          path: s.path,
          title: s.title,
          ordinal: s.ordinal,
          depth: s.depth,
          direct_blocks: s.direct_blocks,
          subtree_blocks: s.subtree_blocks,
          direct_tokens: s.direct_tokens,
          subtree_tokens: s.subtree_tokens,
          first_sentence: s.first_sentence,
        })),
      })),
    };
  },
  describe: (input, view) => withWords(words, scopeData('get_outline', documentsOf(view, input.doc_ids))),
  summarize(input, output, view) {
    const sections = output.documents.reduce((n, d) => n + d.sections.length, 0);
    return summaryOf(words, this.describe(input, view), { documents: output.documents.length, sections }, undefined, { doc_ids: output.documents.map((d) => d.doc_id) });
  },
  words,
};
