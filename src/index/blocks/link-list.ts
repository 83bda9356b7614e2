import { keywordTokens } from '../search/keyword-tokenizer';

/**
 * Link lists: a block that is mostly links — a "Read this in other languages" line, a reference list at
 * a page's foot, a README that lists every page, "相关阅读". Such a block names the topics of many
 * sections without saying anything about them, so it matched almost every query and crowded the
 * sections that do (on the notes of bench/real-notes). It stays a block (list_blocks returns it,
 * scan_term finds it, it can be cited); the blocker keeps it apart from the prose around it, and search
 * ranks it below content (block-priors.ts), as a generated table of contents was dropped altogether.
 *
 * A block is a link list when it holds at least two links and its words outside them are no more than
 * the words of the links' own text (`Read this in other languages: [简体中文](…), [Русский](…)`), or is one
 * link and at most one word besides (`- [Wikipedia](…)`); not `See [the docs](…) for how the cache evicts
 * entries and why.`
 */
const MARKDOWN_LINK = /(!?)\[((?:[^[\]\n]|\[[^[\]\n]*\])*)\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
const WIKILINK = /\[\[([^[\]\n]+)\]\]/g;
const AUTOLINK = /<(?:https?|ftp|mailto):[^<>\s]+>/gi;
const BARE_URL = /\b(?:https?|ftp):\/\/[^\s<>()[\]]+/gi;


export interface LinkCount {
  links: number;
  /** Keyword tokens of the links' visible text. */
  inside: number;
  /** Keyword tokens of everything else (list markers and punctuation count nothing). */
  outside: number;
}

export function countLinks(text: string): LinkCount {
  let links = 0;
  let inside = 0;
  const rest = text
    .replace(WIKILINK, (_m, target: string) => {
      links++;
      inside += keywordTokens(target.split('|').pop()!).length;
      return ' ';
    })
    .replace(MARKDOWN_LINK, (m, bang: string, label: string) => {
      // An image is no link: its alt text is words of the block.
      if (bang) return ` ${label} `;
      links++;
      inside += keywordTokens(label).length;
      return ' ';
    })
    .replace(AUTOLINK, () => {
      links++;
      return ' ';
    })
    .replace(BARE_URL, () => {
      links++;
      return ' ';
    });
  return { links, inside, outside: keywordTokens(rest).length };
}

/** A fenced code block: URLs in code are code. */
const FENCE = /^[ \t]*(?:`{3,}|~{3,})/m;

/** Whether a block's text is a link list (see above). */
export function isLinkList(text: string): boolean {
  // Cheap test first: most blocks hold nothing that could be a link.
  if ((!text.includes('](') && !text.includes('[[') && !text.includes('://')) || FENCE.test(text)) return false;
  const c = countLinks(text);
  // One link is a list when it is all there is (`- [Wikipedia](…)` under References).
  return c.links >= 2 ? c.outside <= Math.max(c.inside, c.links) : c.links === 1 && c.outside <= 1;
}
