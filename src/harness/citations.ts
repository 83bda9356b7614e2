/**
 * Citation markers `【来源:doc_id#block_id】` in a final answer are checked against the blocks the tools
 * returned in this run: a marker for any other block (invented, from another run, or a typo) is removed
 * and reported. Several refs in one marker (`【来源:a#1, b#2】` or `;`/`、`-separated) are checked one
 * by one; an ASCII colon or full-width colon both count.
 */
const MARKER = /【\s*来源\s*[:：]\s*([^】]*)】/g;

export interface CitationCheck {
  /** The answer with invalid refs removed (a marker left with no valid ref disappears entirely). */
  answer: string;
  /** Valid refs in order of first appearance. */
  cited: string[];
  /** Refs that were removed, in order of appearance. */
  removed: string[];
}

export function checkCitations(answer: string, returnedRefs: ReadonlySet<string>): CitationCheck {
  const cited: string[] = [];
  const removed: string[] = [];
  const out = answer.replace(MARKER, (_whole, list: string) => {
    const refs = list
      .split(/[,，;；、\s]+/)
      .map((r) => r.trim())
      .filter(Boolean);
    const keep = refs.filter((r) => {
      if (returnedRefs.has(r)) {
        if (!cited.includes(r)) cited.push(r);
        return true;
      }
      removed.push(r);
      return false;
    });
    return keep.length ? `【来源:${keep.join(', ')}】` : '';
  });
  return { answer: out, cited, removed };
}
