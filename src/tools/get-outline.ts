import { z } from 'zod';
import { type Tool, resolveDocs } from './tool';

export const GetOutlineInput = z
  .object({
    doc_ids: z.array(z.string().min(1)).min(1).describe('one or more doc_ids; repeats are read once, in the order given'),
  })
  .strict()
  .meta({ examples: [{ doc_ids: ['d1a2b3c4d5e'] }] });
export type GetOutlineInput = z.infer<typeof GetOutlineInput>;

export const getOutline: Tool<typeof GetOutlineInput> = {
  name: 'get_outline',
  description:
    'The section structure of documents: for each section its unique path, depth, block and token counts (direct and including subsections) and first sentence. Structure, not content; use the paths with list_blocks.',
  input: GetOutlineInput,
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
};
