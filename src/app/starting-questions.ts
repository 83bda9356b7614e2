import crypto from 'node:crypto';
import type { Document, Section } from '../shared/document';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import type { StartingQuestion } from '../shared/starting-question';

export type { StartingQuestion } from '../shared/starting-question';

/**
 * Questions to start with, for an empty chat over a ready knowledge base: drawn from the knowledge base
 * itself — a document's title and one of its substantial sections — in the UI language, each limited to
 * its document (so the answer comes from where the question came from). A learner facing 300 notes sees
 * a few concrete ways in. Deterministic: the documents are ordered by a hash of their id and content,
 * so the same knowledge base offers the same questions, and a rebuild that changes nothing changes none.
 */

/** Headings that name a part of every document rather than a topic: no one asks about "References". */
const GENERIC = new Set(
  [
    'introduction', 'intro', 'overview', 'summary', 'conclusion', 'conclusions', 'references', 'bibliography', 'contents', 'table of contents', 'toc',
    'appendix', 'notes', 'todo', 'index', 'preface', 'abstract', 'acknowledgements', 'acknowledgments', 'see also', 'further reading', 'links', 'setup',
    'installation', 'license', 'changelog', 'faq', 'misc', 'other', 'untitled',
    '目录', '参考文献', '参考资料', '引言', '概述', '总结', '小结', '附录', '前言', '摘要', '致谢', '延伸阅读', '链接', '其他', '备注', '笔记',
  ].map((t) => t.normalize('NFC')),
);

const fold = (s: string) => s.normalize('NFC').trim().toLowerCase();

/** A heading someone could ask about: a topic word or phrase, not "2.1", not "References", not the title again. */
export function askableSection(s: Section, doc: Document): boolean {
  const t = fold(s.title);
  const letters = [...t].filter((c) => /\p{L}/u.test(c)).length;
  return s.depth <= 3 && s.subtree_blocks > 0 && letters >= 2 && [...t].length <= 60 && !GENERIC.has(t) && t !== fold(doc.title);
}

const TEMPLATES = {
  en: [(d: string, s: string) => `What does “${d}” say about ${s}?`, (d: string, s: string) => `Explain ${s}, as “${d}” describes it.`, (d: string, s: string) => `What are the key points of “${s}” in “${d}”?`],
  zh: [(d: string, s: string) => `《${d}》中关于“${s}”讲了什么？`, (d: string, s: string) => `根据《${d}》，解释一下“${s}”。`, (d: string, s: string) => `《${d}》的“${s}”一节有哪些要点？`],
};
const WHOLE = { en: (d: string) => `What are the main points of “${d}”?`, zh: (d: string) => `《${d}》的主要内容是什么？` };

const order = (d: Document) => crypto.createHash('sha256').update(`${d.doc_id}\0${d.content_hash}`).digest('hex');

/** The section to ask about in a document: the largest askable one (by tokens, then the earliest). */
function bestSection(doc: Document): Section | null {
  let best: Section | null = null;
  for (const s of doc.sections) {
    if (!askableSection(s, doc)) continue;
    if (!best || s.subtree_tokens > best.subtree_tokens || (s.subtree_tokens === best.subtree_tokens && s.ordinal < best.ordinal)) best = s;
  }
  return best;
}

export function startingQuestions(snapshot: Pick<LoadedSnapshot, 'documents' | 'docRanges'>, lang: 'zh' | 'en', count = 4): StartingQuestion[] {
  // Blocks counted from the ranges, not read: a loaded document makes its blocks when first read (a
  // million objects at 1M blocks, on the extension host, for the first chat).
  const docs = snapshot.documents.filter((_, i) => snapshot.docRanges[i]![1] > snapshot.docRanges[i]![0]).map((d) => ({ d, key: order(d) }));
  docs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return docs.slice(0, count).map(({ d }, i) => {
    const s = bestSection(d);
    const title = d.title.trim() || d.path.split(/[\\/]/).pop()!;
    const question = s ? TEMPLATES[lang][i % TEMPLATES[lang].length]!(title, s.title.trim()) : WHOLE[lang](title);
    return { question, doc_id: d.doc_id, doc_title: title, section: s ? s.title.trim() : null };
  });
}
