import { CodeUnits } from '../../common/code-units';
import type { Lang } from '../../shared/document';

const scratch = new CodeUnits();

export interface ScriptCounts {
  han: number;
  kana: number;
  latinWords: number;
}


/**
 * Inline code, link targets, URLs and tags are not prose: a Chinese page full of `author.books` is still
 * Chinese. Each part stops at the next character that could start another (a target at "(", a tag at
 * "<"): a line of "](](](…" or "<<<…" took time in its length squared (150 KB: 3 s).
 */
const NOT_PROSE = /`[^`\n]*`|\]\([^()\s]*\)|https?:\/\/\S+|<[^<>\n]*>/g;

const isLatin = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0xc0 && c <= 0x24f);

/** Han characters, kana, and Latin words of two letters or more, in one pass over the prose. */
export function countScripts(raw: string): ScriptCounts {
  const text = raw.replace(NOT_PROSE, ' ');
  const units = scratch.load(text);
  let han = 0;
  let kana = 0;
  let latinWords = 0;
  let run = 0;
  for (let i = 0, n = text.length; i < n; i++) {
    const c = units[i]!;
    if (isLatin(c)) {
      run++;
      continue;
    }
    if (run >= 2) latinWords++;
    run = 0;
    if ((c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff)) han++;
    else if (c >= 0x3040 && c <= 0x30ff) kana++;
  }
  if (run >= 2) latinWords++;
  return { han, kana, latinWords };
}

export function addCounts(a: ScriptCounts, b: ScriptCounts): ScriptCounts {
  return { han: a.han + b.han, kana: a.kana + b.kana, latinWords: a.latinWords + b.latinWords };
}

/**
 * Language of a document from the prose it contains (code is left out by the caller). One Latin word
 * carries about as much as two Han characters, so that is the exchange rate; a side with at least 80% of
 * the weight names the language, anything else is `mixed`. Kana marks Japanese.
 */
export function detectLang(c: ScriptCounts): Lang {
  const cjk = c.han + c.kana;
  const latin = c.latinWords * 2;
  const total = cjk + latin;
  if (total < 4) return 'und';
  if (cjk / total >= 0.8) return c.kana > c.han * 0.1 ? 'ja' : 'zh';
  if (latin / total >= 0.8) return 'en';
  return 'mixed';
}
