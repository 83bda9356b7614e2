import type { DocumentMatchKind } from './document-view-protocol';

/**
 * Which elements of a rendered part to highlight for a block (pure; the document view runs it on the
 * elements it shows). A block's location names its elements; its text says what they held when it was
 * indexed. Both are compared as keys: NFKC, lower case, no white space, no list or table marks (the
 * indexed text of a list reads `- item`, of a table `| a | b |`).
 */
export interface ElementText {
  /** The element's number (data-docqa-el). */
  n: number;
  text: string;
}

export interface DocumentMatch {
  first: number;
  last: number;
  match: DocumentMatchKind;
}

export function matchKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^\s*(?:[-*•]|\d+\.)\s+/gm, '')
    .replace(/[\s|]+|^-{3,}$/gm, '')
    .replace(/-{3,}/g, '');
}

/** The first `n` key characters of the block, enough to recognise it and short enough to survive a split. */
const PROBE = 48;

/**
 * `exact` when the named elements still hold the block's text (or the block gives none); `moved` when
 * they do not but a run of elements elsewhere does (the file changed since it was indexed); `none` when
 * nothing does: the named elements are highlighted anyway if they exist, so the person sees the spot.
 */
export function matchElements(elements: readonly ElementText[], first: number, last: number, text: string): DocumentMatch {
  const named = elements.filter((e) => e.n >= first && e.n <= last);
  const probe = matchKey(text).slice(0, PROBE);
  if (!probe) return named.length ? { first, last, match: 'exact' } : { first: 0, last: 0, match: 'none' };
  if (named.length && matchKey(named.map((e) => e.text).join('')).includes(probe)) return { first, last, match: 'exact' };
  const span = Math.max(1, last - first + 1);
  for (let i = 0; i < elements.length; i++) {
    const run = elements.slice(i, i + span);
    if (matchKey(run.map((e) => e.text).join('')).includes(probe)) return { first: run[0]!.n, last: run[run.length - 1]!.n, match: 'moved' };
  }
  return named.length ? { first, last, match: 'none' } : { first: 0, last: 0, match: 'none' };
}
