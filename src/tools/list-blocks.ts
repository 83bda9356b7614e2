import { z } from 'zod';
import { PATH_SEPARATOR } from '../index/blocks/section-tree';
import { type Tool, ToolFailure, blockView, resolveDocs } from './tool';

export const ListBlocksInput = z
  .object({
    doc_id: z.string().min(1).describe('exactly one document; call again for another'),
    section_paths: z.array(z.string().min(1)).optional().describe('section paths from get_outline; a path includes its subsections; absent or [] = whole document'),
  })
  .strict();
export type ListBlocksInput = z.infer<typeof ListBlocksInput>;

export const listBlocks: Tool<typeof ListBlocksInput> = {
  name: 'list_blocks',
  description:
    'Every block of a document or of some of its sections (subsections included), complete and in document order, with full text. Use for "all the points in section X"; it never returns part of a scope.',
  input: ListBlocksInput,
  async run(input, { snapshot, scope }) {
    const [di] = resolveDocs(snapshot, [input.doc_id], scope);
    const doc = snapshot.documents[di!]!;
    const paths = [...new Set(input.section_paths ?? [])];
    const known = new Set(doc.sections.map((s) => s.path));
    const unknown = paths.filter((p) => !known.has(p));
    if (unknown.length) throw new ToolFailure('scope_not_found', `no section ${unknown.map((p) => JSON.stringify(p)).join(', ')} in ${doc.doc_id}; get_outline lists the paths`);
    const inScope = (sectionPath: string) => paths.length === 0 || paths.some((p) => sectionPath === p || sectionPath.startsWith(p + PATH_SEPARATOR));
    const [start] = snapshot.docRanges[di!]!;
    const blocks = doc.blocks.filter((b) => inScope(b.section_path)).map((b) => blockView(snapshot, start + b.block_index));
    return blocks.length ? { doc_id: doc.doc_id, blocks, total: blocks.length } : { doc_id: doc.doc_id, blocks: [], total: 0, empty_reason: 'scope_empty' };
  },
};
