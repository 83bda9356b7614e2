import type { RemovedCitation } from '../shared/run-result';

/**
 * Citation markers `【来源:doc_id#block_id】` in a final answer are checked against what this run showed
 * the model. A block is citable only when its full text reached the model (search_blocks, list_blocks,
 * admitted into the context): a scan_term snippet locates text but does not support a claim (seed
 * §10.1: "snippet 是定位信息，不是完整上下文"). Every other ref — invented, from another run, a typo,
 * a snippet, a result the budget kept out — is removed and reported with its reason. Several refs in one
 * marker (`【来源:a#1, b#2】` or `;`/`、`-separated) are checked one by one; an ASCII or full-width colon
 * both count.
 */
export const MARKER = /【\s*来源\s*[:：]\s*([^】]*)】/g;

export interface CitableRefs {
  /** Blocks whose full text the model saw. */
  citable: ReadonlySet<string>;
  /** Blocks scan_term located (snippets only). */
  located?: ReadonlySet<string>;
  /** Blocks in results that were not admitted. */
  refused?: ReadonlySet<string>;
}

export interface CitationCheck {
  /** The answer with invalid refs removed (a marker left with no valid ref disappears entirely). */
  answer: string;
  /** Valid refs in order of first appearance. */
  cited: string[];
  /** Refs that were removed, in order of appearance, with why. */
  removed: RemovedCitation[];
}

export function checkCitations(answer: string, refs: CitableRefs): CitationCheck {
  const cited: string[] = [];
  const removed: RemovedCitation[] = [];
  const out = answer.replace(MARKER, (_whole, list: string) => {
    const parts = list
      .split(/[,，;；、\s]+/)
      .map((r) => r.trim())
      .filter(Boolean);
    const keep = parts.filter((r) => {
      if (refs.citable.has(r)) {
        if (!cited.includes(r)) cited.push(r);
        return true;
      }
      removed.push({ ref: r, reason: refs.located?.has(r) ? 'snippet_only' : refs.refused?.has(r) ? 'not_admitted' : 'not_returned' });
      return false;
    });
    return keep.length ? `【来源:${keep.join(', ')}】` : '';
  });
  return { answer: out, cited, removed };
}

/**
 * An earlier answer as a follow-up's context: its citation markers removed, so the model is not shown
 * refs this run's tools did not return (the check above would remove a re-cited one anyway).
 */
export function stripCitations(answer: string): string {
  return answer
    .replace(MARKER, '')
    .replace(/[ \t]+$/gm, '')
    .trim();
}
