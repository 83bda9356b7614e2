import type { Line } from './pdf-lines';

/**
 * Whether a page's text layer is text. Fonts without a Unicode mapping come out of pdf.js in two ways:
 * as raw glyph codes (control characters, the replacement character, private-use code points), or as
 * the glyph codes read through a Latin code page: Urdu set in a legacy Nastaliq font reads "¿Ûâ ÔÛ ¯ø",
 * made of the Latin-1 letters and signs that real European text uses only sparingly. Either way, indexed,
 * it would fill search results with noise and match nothing a person types.
 */

/**
 * Code points that stand for a glyph, not a character: controls, U+FFFD, the private-use areas — less
 * the private-use bullets Word writes (U+F0A7, F0B7, F0D8, F0FC), which the blocker reads as list items.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const GLYPH_CODE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd\ue000-\uf0a6\uf0a8-\uf0b6\uf0b8-\uf0d7\uf0d9-\uf0fb\uf0fd-\uf8ff\u{f0000}-\u{10ffff}]/gu;

/**
 * The upper half of the Windows-1252 code page as Unicode: what byte codes 0x80–0xFF read as through it.
 * Accented letters are a small share of any language written with them (French ~4 %, German ~1.5 %,
 * Icelandic ~12 % of letters); text that is mostly these is glyph codes read as Latin.
 */
const CODE_PAGE_HIGH = /[\u00a1-\u00ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]/gu;

/** A line more than half glyph codes is dropped; the rest of its page stays. */
export const LINE_CODE_LIMIT = 0.5;
/** Share of a page's characters dropped as glyph codes past which the page is named as not read in full. */
export const GLYPH_CODE_LIMIT = 0.2;
/** Share of a page's letters and signs from the code page's upper half past which it is glyph codes read as Latin… */
export const CODE_PAGE_LIMIT = 0.4;
/** …when at least this share are signs, not letters: a list of accented letters ("àÀâÂ…") is text. */
export const CODE_PAGE_SIGNS = 0.1;
/** Fewer letters and signs than this say too little to judge a script by shares (a lone "§ 3" is text). */
export const JUDGE_MIN_CHARS = 20;

export interface TextJudgement {
  /** The lines that read, glyph codes removed. */
  lines: Line[];
  /** null: the page reads in full. Otherwise what was not read, in words for the failure message. */
  unreadable: string | null;
}

const visibleLength = (text: string) => [...text.replace(/\s+/g, '')].length;

/**
 * Judges a page's text layer: lines that are mostly glyph codes are dropped and stray codes removed
 * from the others (a paper whose body font lacks a mapping keeps its headings); a page that reads as
 * code-page soup is dropped whole. `unreadable` says so when more than GLYPH_CODE_LIMIT of the page
 * was lost, or the page was all codes.
 */
export function judgeText(lines: readonly Line[]): TextJudgement {
  let total = 0;
  let lost = 0;
  const kept: Line[] = [];
  for (const l of lines) {
    const n = visibleLength(l.text);
    const codes = l.text.match(GLYPH_CODE)?.length ?? 0;
    total += n;
    if (n > 0 && codes / n > LINE_CODE_LIMIT) {
      lost += n;
      continue;
    }
    lost += codes;
    const text = l.text.replace(GLYPH_CODE, '').replace(/\s+/g, ' ').trim();
    if (text) kept.push({ ...l, text });
  }
  if (total > 0 && (kept.length === 0 || lost / total > GLYPH_CODE_LIMIT)) {
    const share = `${Math.round((100 * lost) / total)}% of its characters are glyph codes without a Unicode mapping`;
    return { lines: kept, unreadable: kept.length ? `${share}; its readable lines are indexed` : share };
  }
  // Letters and signs only: ASCII digits and punctuation say nothing about the script.
  const signs = kept.map((l) => l.text).join('').replace(/[\s\u0020-\u0040\u005b-\u0060\u007b-\u007e]/gu, '');
  const n = [...signs].length;
  const high = signs.match(CODE_PAGE_HIGH) ?? [];
  const nonLetters = high.filter((c) => !/\p{L}/u.test(c)).length;
  if (n >= JUDGE_MIN_CHARS && high.length / n > CODE_PAGE_LIMIT && nonLetters / n > CODE_PAGE_SIGNS) {
    return { lines: [], unreadable: `${Math.round((100 * high.length) / n)}% of its letters are Latin-1 signs and accented letters, as a font without a Unicode mapping reads (e.g. Urdu or Hindi set in a legacy font)` };
  }
  return { lines: kept, unreadable: null };
}
