import { z } from 'zod';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import { briefOf, docsPhrase, documentsOf, inBoth, plural, quoted, scopeData, summaryOf, withWords } from './step-summary';
import { BlockView, EmptyReason, type StepWords, type Tool, blockView, docSet, fold } from './tool';

export const ScanTermInput = z
  .object({
    term: z.string().trim().min(1).describe('the literal text to find (NFC and case folding only: no stemming, synonyms or punctuation folding)'),
    doc_ids: z.array(z.string().min(1)).min(1).optional().describe('limit to these documents; absent = the whole collection'),
  })
  .strict()
  .meta({ examples: [{ term: 'mitochondria' }, { term: 'Calvin', doc_ids: ['d1a2b3c4d5e'] }] });
export type ScanTermInput = z.infer<typeof ScanTermInput>;

const SNIPPET_RADIUS = 40;

/** A block that contains the term: where it is, a snippet around the first occurrence, and how many times. */
export const ScanHit = BlockView.omit({ text: true }).extend({ snippet: z.string(), count: z.number().int() });
export type ScanHit = z.infer<typeof ScanHit>;

export const ScanTermOutput = z.object({
  /** The term as scanned for (NFC, folded). */
  term: z.string(),
  hits: z.array(ScanHit),
  total_count: z.number().int(),
  empty_reason: EmptyReason.optional(),
});
export type ScanTermOutput = z.infer<typeof ScanTermOutput>;

const words: StepWords = {
  scope: (s) => inBoth((lang) => (lang === 'zh' ? `在${docsPhrase(s.documents, lang)}中逐字扫描${quoted(s.text ?? '')}` : `Scanning ${docsPhrase(s.documents, lang)} for ${quoted(s.text ?? '')}`)),
  // An exhaustive scan: the release says which documents it covered, and what it found in them.
  outcome: (s, o) => {
    const { count, of, scoped } = s.documents;
    const term = s.text ?? '';
    const hits = plural(o.hits, 'hit');
    const ofDocs = `${of} document${of === 1 ? '' : 's'}`;
    return {
      words: o.hits === 0 ? { en: '0 hits', zh: '0 处命中' } : { en: `${hits} in ${plural(o.hit_blocks, 'block')}`, zh: `${o.hit_blocks} 个块中 ${o.hits} 处命中` },
      checked: scoped
        ? { en: `scanned ${count} of the ${ofDocs} in the question’s scope for “${term}”: ${hits}`, zh: `在问题范围内的 ${of} 篇文档中扫描了 ${count} 篇，查找“${term}”：${o.hits} 处命中` }
        : { en: `scanned ${count} of ${of} documents for “${term}”: ${hits}`, zh: `在 ${of} 篇中的 ${count} 篇文档里逐字扫描“${term}”：${o.hits} 处命中` },
      covers: scoped
        ? { en: `${count} of the ${ofDocs} in the question’s scope scanned for “${term}”`, zh: `问题范围内 ${of} 篇文档中的 ${count} 篇已扫描“${term}”` }
        : { en: `${count} of ${of} documents scanned for “${term}”`, zh: `已扫描 ${of} 篇中的 ${count} 篇文档（“${term}”）` },
      tally: null,
    };
  },
};

/** NFC and folded block texts, computed once per loaded snapshot (it never changes). */
const textCache = new WeakMap<LoadedSnapshot, { nfc: string[]; folded: string[] }>();
function scanTexts(s: LoadedSnapshot): { nfc: string[]; folded: string[] } {
  let t = textCache.get(s);
  if (!t) {
    const nfc = s.blockRefs.map(([d, b]) => s.documents[d]!.blocks[b]!.text.normalize('NFC'));
    t = { nfc, folded: nfc.map((x) => x.toLowerCase()) };
    textCache.set(s, t);
  }
  return t;
}

/** Non-overlapping occurrences of `needle` in `hay`, the first of them at `first` when known. */
export function countOccurrences(hay: string, needle: string, first = hay.indexOf(needle)): number {
  let n = 0;
  for (let i = first; i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Where (in the NFC text) the folded text's offset falls: lower-casing can change lengths. */
function originalOffset(nfc: string, folded: string, foldedOffset: number): number {
  if (folded.length === nfc.length) return foldedOffset;
  let seen = 0;
  let i = 0;
  for (const ch of nfc) {
    if (seen >= foldedOffset) break;
    seen += ch.toLowerCase().length;
    i += ch.length;
  }
  return Math.min(i, nfc.length);
}

function snippet(nfc: string, at: number, len: number): string {
  const start = Math.max(0, at - SNIPPET_RADIUS);
  const end = Math.min(nfc.length, at + len + SNIPPET_RADIUS);
  return `${start > 0 ? '…' : ''}${nfc.slice(start, end).replace(/\s+/g, ' ')}${end < nfc.length ? '…' : ''}`;
}

export const scanTerm: Tool<typeof ScanTermInput, typeof ScanTermOutput> = {
  name: 'scan_term',
  description:
    'Every block that contains a literal string, with a count per block and a snippet around the first occurrence, in document then block order. count 0 proves only that this exact string is absent, not the idea.',
  input: ScanTermInput,
  output: ScanTermOutput,
  // NFC and case folding are all the scan does to the term: a term differing only in case is the same scan.
  scope(input, snapshot, questionScope) {
    const docs = docSet(snapshot, input.doc_ids, questionScope);
    return snapshot.documents.length === 0 ? 'collection_empty' : { docs, needle: fold(input.term) };
  },
  async run(input, { snapshot, scope, signal }) {
    // An unknown doc_id fails the whole call before anything else, an empty collection included.
    const set = docSet(snapshot, input.doc_ids, scope);
    const needle = fold(input.term);
    // The term as scanned for (NFC, folded): what was searched, and the same for spellings the scan does not tell apart.
    if (snapshot.documents.length === 0) return { term: needle, hits: [], total_count: 0, empty_reason: 'collection_empty' };
    const docs = set === 'all' ? snapshot.documents.map((_, i) => i) : set;
    const { nfc, folded: texts } = scanTexts(snapshot);
    const hits: ScanHit[] = [];
    let total = 0;
    for (const d of docs) {
      signal?.throwIfAborted();
      const [start, end] = snapshot.docRanges[d]!;
      for (let g = start; g < end; g++) {
        const first = texts[g]!.indexOf(needle);
        if (first < 0) continue;
        const count = countOccurrences(texts[g]!, needle, first);
        total += count;
        const v = blockView(snapshot, g);
        const at = originalOffset(nfc[g]!, texts[g]!, first);
        // The block view without its text, then snippet and count: one literal, not two object spreads
        // (a common word hits thousands of blocks).
        hits.push({
          ref: v.ref,
          doc_id: v.doc_id,
          block_id: v.block_id,
          doc_title: v.doc_title,
          source_label: v.source_label,
          section_path: v.section_path,
          snippet: snippet(nfc[g]!, at, needle.length),
          count,
        });
      }
    }
    return hits.length ? { term: needle, hits, total_count: total } : { term: needle, hits: [], total_count: 0, empty_reason: 'no_match' };
  },
  describe: (input, view) => withWords(words, scopeData('scan_term', documentsOf(view, input.doc_ids), { text: input.term ?? null })),
  summarize(input, output, view) {
    const counts = { hits: output.total_count, hit_blocks: output.hits.length, hit_documents: new Set(output.hits.map((h) => h.doc_id)).size };
    return summaryOf(words, this.describe(input, view), counts, output.empty_reason, { located: output.hits.map((h) => h.ref), briefs: output.hits.map((h) => briefOf(h, h.snippet)) });
  },
  words,
};
