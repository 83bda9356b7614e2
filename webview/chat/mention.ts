import fuzzysort from 'fuzzysort';
import type { QuestionScope, ScopeTargets } from '../../src/shared/question-scope';

/**
 * The composer's `@`: where a mention is being typed, what it offers (the snapshot's sources and
 * documents, fuzzy-matched with fuzzysort), and the scope the chosen ones make. Pure, so the keyboard
 * behaviour is tested apart from the page.
 */
export type ScopeItem = { kind: 'source'; key: string; label: string; detail: string } | { kind: 'document'; key: string; label: string; detail: string; doc_id: string };

/** The `@…` being typed just before the caret: at the start or after a space, up to the caret, no space inside. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([^\s@]*)$/u.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]! } : null;
}

/** The text without the mention being typed (the chosen item becomes a chip instead). */
export function withoutMention(text: string, caret: number, m: { start: number }): { text: string; caret: number } {
  return { text: text.slice(0, m.start) + text.slice(caret), caret: m.start };
}

export function itemsOf(t: ScopeTargets, docsWord: (n: number) => string): ScopeItem[] {
  return [
    ...t.sources.map((s) => ({ kind: 'source' as const, key: `source:${s.label}`, label: s.label, detail: docsWord(s.documents) })),
    ...t.documents.map((d) => ({ kind: 'document' as const, key: `doc:${d.doc_id}`, label: d.title, detail: d.file === d.title ? d.source_label : `${d.file} · ${d.source_label}`, doc_id: d.doc_id })),
  ];
}

/**
 * What `@query` offers, best first, without what is chosen already: everything in order for an empty
 * query, else the fuzzy matches of label and file name (sources before documents on equal scores).
 */
export function rankItems(items: readonly ScopeItem[], query: string, chosen: ReadonlySet<string>, limit = 8): ScopeItem[] {
  const open = items.filter((i) => !chosen.has(i.key));
  if (!query) return open.slice(0, limit);
  const found = fuzzysort.go(query, open, { keys: ['label', 'detail'], limit: 0, threshold: 0.2 });
  return [...found]
    .map((r, i) => ({ item: r.obj, score: r.score, i }))
    .sort((a, b) => b.score - a.score || (a.item.kind === b.item.kind ? a.i - b.i : a.item.kind === 'source' ? -1 : 1))
    .slice(0, limit)
    .map((x) => x.item);
}

/** The question's scope from the chosen items (null: the whole knowledge base). */
export function scopeOfItems(chosen: readonly ScopeItem[]): QuestionScope | null {
  if (chosen.length === 0) return null;
  return { sources: chosen.filter((c) => c.kind === 'source').map((c) => c.label), doc_ids: chosen.flatMap((c) => (c.kind === 'document' ? [c.doc_id] : [])) };
}
