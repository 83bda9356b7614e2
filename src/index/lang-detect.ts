import type { Lang } from './model';

export interface ScriptCounts {
  han: number;
  kana: number;
  latinWords: number;
}

const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/gu;
const KANA = /[\u3040-\u30ff]/gu;
const LATIN_WORD = /[A-Za-z\u00c0-\u024f]{2,}/gu;

/** Inline code, link targets, URLs and tags are not prose: a Chinese page full of `author.books` is still Chinese. */
const NOT_PROSE = /`[^`\n]*`|\]\([^)]*\)|https?:\/\/\S+|<[^>\n]*>/g;

export function countScripts(raw: string): ScriptCounts {
  const text = raw.replace(NOT_PROSE, ' ');
  return {
    han: text.match(HAN)?.length ?? 0,
    kana: text.match(KANA)?.length ?? 0,
    latinWords: text.match(LATIN_WORD)?.length ?? 0,
  };
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
