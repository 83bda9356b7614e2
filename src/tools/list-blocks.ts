import { z } from 'zod';
import { isWithin } from '../index/blocks/section-path';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { lastSegment } from '../index/blocks/section-path';
import type { Lang } from '../shared/step-record';
import { briefOf, docsPhrase, documentsOf, inBoth, plural, scopeData, summaryOf, titled, withWords } from './step-summary';
import { BlockView, EmptyReason, type ScopeData, type StepWords, type Tool, ToolFailure, blockView, resolveDocs } from './tool';

export const ListBlocksInput = z
  .object({
    doc_id: z.string().min(1).describe('exactly one document; call again for another'),
    section_paths: z.array(z.string().min(1)).optional().describe('section paths from get_outline; a path includes its subsections; absent or [] = whole document'),
  })
  .strict()
  .meta({ examples: [{ doc_id: 'd1a2b3c4d5e', section_paths: ['Cells > Membranes'] }] });
export type ListBlocksInput = z.infer<typeof ListBlocksInput>;

export const ListBlocksOutput = z.object({
  doc_id: z.string(),
  blocks: z.array(BlockView),
  total: z.number().int(),
  empty_reason: EmptyReason.optional(),
});
export type ListBlocksOutput = z.infer<typeof ListBlocksOutput>;

/** The one section read, or the document when it read all of it or several sections. */
function where(s: ScopeData, lang: Lang): string {
  if (s.sections.length === 1) return `§ ${lastSegment(s.sections[0]!)}`;
  return titled(s.documents.titles[0] ?? '', lang);
}

const words: StepWords = {
  scope: (s) =>
    inBoth((lang) => {
      const docs = docsPhrase(s.documents, lang);
      const n = s.sections.length;
      if (lang === 'zh') return n === 0 ? `读取${docs}全文` : n === 1 ? `读取${docs}的 § ${lastSegment(s.sections[0]!)}` : `读取${docs}的 ${n} 个章节`;
      return n === 0 ? `Reading all of ${docs}` : n === 1 ? `Reading § ${lastSegment(s.sections[0]!)} of ${docs}` : `Reading ${n} sections of ${docs}`;
    }),
  // A complete scope: the release says it covered every block of it.
  outcome: (s, o) => ({
    words: o.blocks === 0 ? { en: 'no blocks in that scope', zh: '范围内没有块' } : { en: `all ${plural(o.blocks, 'block')}`, zh: `全部 ${o.blocks} 个块` },
    checked: { en: `read all ${plural(o.blocks, 'block')} of ${where(s, 'en')}`, zh: `读取了${where(s, 'zh')}的全部 ${o.blocks} 个块` },
    covers: { en: `all ${plural(o.blocks, 'block')} of ${where(s, 'en')}`, zh: `${where(s, 'zh')}的全部 ${o.blocks} 个块` },
    tally: null,
  }),
};

/**
 * The document and the blocks in scope (their block_index, in order; `all` for the whole document): a
 * path covers its section and every section within it, compared segment by segment; an unknown
 * document or path fails the whole call.
 */
function resolve(input: ListBlocksInput, snapshot: LoadedSnapshot, questionScope?: readonly string[]): { di: number; blocks: number[] | 'all' } {
  const [di] = resolveDocs(snapshot, [input.doc_id], questionScope);
  const doc = snapshot.documents[di!]!;
  const paths = [...new Set(input.section_paths ?? [])];
  if (paths.length === 0) return { di: di!, blocks: 'all' };
  const known = new Set(doc.sections.map((s) => s.path));
  const unknown = paths.filter((p) => !known.has(p));
  if (unknown.length) throw new ToolFailure('scope_not_found', `no section ${unknown.map((p) => JSON.stringify(p)).join(', ')} in ${doc.doc_id}; get_outline lists the paths`);
  const blocks = doc.blocks.filter((b) => paths.some((p) => isWithin(b.section_path, p))).map((b) => b.block_index);
  return { di: di!, blocks: blocks.length === doc.blocks.length ? 'all' : blocks };
}

/** Block indices as runs (`0-4,9-9`): a short, exact key for a set of blocks. */
function runs(blocks: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < blocks.length; ) {
    let j = i;
    while (j + 1 < blocks.length && blocks[j + 1] === blocks[j]! + 1) j++;
    out.push(`${blocks[i]}-${blocks[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

export const listBlocks: Tool<typeof ListBlocksInput, typeof ListBlocksOutput> = {
  name: 'list_blocks',
  description:
    'Every block of a document or of some of its sections (subsections included), complete and in document order, with full text. Use for "all the points in section X"; it never returns part of a scope.',
  input: ListBlocksInput,
  output: ListBlocksOutput,
  // The blocks the call returns: absent and [] paths are one scope, and so are paths that cover the same blocks.
  scope(input, snapshot, questionScope) {
    const { di, blocks } = resolve(input, snapshot, questionScope);
    return { doc_id: snapshot.documents[di]!.doc_id, blocks: blocks === 'all' ? 'all' : runs(blocks) };
  },
  async run(input, { snapshot, scope }) {
    const { di, blocks } = resolve(input, snapshot, scope);
    const doc = snapshot.documents[di]!;
    const [start] = snapshot.docRanges[di]!;
    const views = (blocks === 'all' ? doc.blocks.map((b) => b.block_index) : blocks).map((bi) => blockView(snapshot, start + bi));
    return views.length ? { doc_id: doc.doc_id, blocks: views, total: views.length } : { doc_id: doc.doc_id, blocks: [], total: 0, empty_reason: 'scope_empty' };
  },
  describe: (input, view) => withWords(words, scopeData('list_blocks', documentsOf(view, input.doc_id === undefined ? undefined : [input.doc_id]), { sections: input.section_paths ?? [] })),
  summarize(input, output, view) {
    return summaryOf(words, this.describe(input, view), { blocks: output.blocks.length }, output.empty_reason, { returned: output.blocks, briefs: output.blocks.map((b) => briefOf(b, b.text)) });
  },
  words,
};
