/**
 * Which text items of a PDF page make up a block's text, for the PDF page view's highlight. Pure: the
 * webview passes pdf.js's text items (in the order its TextLayer made their spans), the unit tests pass
 * plain objects.
 *
 * A block's text is what ingestion made of the page: wrapped lines joined, hyphenated words repaired
 * ("mem-" + "branes" → "membranes"), running headers and footers left out. So both sides are compared
 * as a "key": NFKC, lower case, without whitespace and without hyphens. The key of a block is searched
 * as one run in the page's key (exact); failing that (text from the next page, reading order the
 * content stream does not follow), the page's lines that mostly consist of the block's text are chosen
 * (approximate).
 */
export interface PageTextItem {
  str: string;
  /** pdf.js's hasEOL: the item ends a line. */
  eol?: boolean;
  /** The baseline's y (transform[5]): another y starts another line. */
  y?: number;
}

export interface BlockMatch {
  kind: 'exact' | 'approximate' | 'none';
  /** Indices into the items, ascending, without repeats. */
  items: number[];
}

/** Characters that never count: whitespace, hyphens (a line-end hyphen is dropped by ingestion), soft hyphens, zero-width marks. */
const SKIP = /[\s\-\u00ad\u2010\u2011\u200b-\u200d\u2060\ufeff]/u;

interface Key {
  text: string;
  /** For each character of text, the item it came from. */
  owner: number[];
}

function keyOf(parts: readonly string[]): Key {
  let text = '';
  const owner: number[] = [];
  parts.forEach((s, i) => {
    for (const ch of s) {
      if (SKIP.test(ch)) continue;
      const n = ch.normalize('NFKC').toLowerCase();
      for (const c of n) {
        if (SKIP.test(c)) continue;
        text += c;
        owner.push(i);
      }
    }
  });
  return { text, owner };
}

/** The block text's key (what is searched for); exported for the tests. */
export function matchKey(s: string): string {
  return keyOf([s]).text;
}

/** Lines of the page: runs of item indices, broken after an item that ends a line or where the baseline moves. */
export function pageLines(items: readonly PageTextItem[]): number[][] {
  const lines: number[][] = [];
  let line: number[] = [];
  items.forEach((it, i) => {
    const prev = items[i - 1];
    if (line.length && prev?.y !== undefined && it.y !== undefined && Math.abs(prev.y - it.y) > 1) {
      lines.push(line);
      line = [];
    }
    line.push(i);
    if (it.eol) {
      lines.push(line);
      line = [];
    }
  });
  if (line.length) lines.push(line);
  return lines;
}

function bigrams(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < s.length; i++) out.push(s.slice(i, i + 2));
  return out;
}

/** A line shorter than this (in key characters) is too short to say anything by overlap ("2", "the"). */
const MIN_LINE_KEY = 4;
/** A line is part of the block when this share of its character pairs occurs in the block. */
const LINE_SHARE = 0.75;
/** With no such line, the single best line still counts above this share. */
const BEST_LINE_SHARE = 0.5;

export function matchBlock(items: readonly PageTextItem[], blockText: string): BlockMatch {
  const block = matchKey(blockText);
  if (!block) return { kind: 'none', items: [] };
  const page = keyOf(items.map((it) => it.str));
  const at = page.text.indexOf(block);
  if (at >= 0) return { kind: 'exact', items: [...new Set(page.owner.slice(at, at + block.length))] };

  const inBlock = new Set(bigrams(block));
  const scored = pageLines(items).map((line) => {
    const key = keyOf(line.map((i) => items[i]!.str)).text;
    const pairs = bigrams(key);
    const share = key.length < MIN_LINE_KEY ? 0 : pairs.filter((p) => inBlock.has(p)).length / pairs.length;
    return { line, share };
  });
  let chosen = scored.filter((s) => s.share >= LINE_SHARE);
  if (!chosen.length) {
    const best = scored.reduce<(typeof scored)[number] | null>((b, s) => (s.share > (b?.share ?? 0) ? s : b), null);
    if (best && best.share >= BEST_LINE_SHARE) chosen = [best];
  }
  if (!chosen.length) return { kind: 'none', items: [] };
  // Only the items with text: an end-of-line marker has no span on screen.
  const picked = chosen.flatMap((s) => s.line).filter((i) => matchKey(items[i]!.str).length > 0);
  return { kind: 'approximate', items: [...new Set(picked)].sort((a, b) => a - b) };
}
