/**
 * Tokens for the keyword (BM25) side, identical at index and query time. Latin, digits and other
 * alphabetic scripts: NFKC, lower-cased words. Han, kana and Hangul: every character and every adjacent
 * pair (unigrams + bigrams), so Chinese needs no dictionary and a two-character word always matches
 * itself. Orama's default tokenizer returns nothing for CJK; this is the measured replacement (see
 * README, "Retrieval quality").
 */
export const KEYWORD_TOKENIZER_NAME = 'docqa-keyword@1 (nfkc-lower words + cjk uni+bigrams)';

const SEGMENT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}\p{M}]+/gu;
const CJK_RUN = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function keywordTokens(text: string): string[] {
  const out: string[] = [];
  const norm = text.normalize('NFKC').toLowerCase();
  for (const m of norm.matchAll(SEGMENT)) {
    const run = m[0];
    if (!CJK_RUN.test(run)) {
      out.push(run);
      continue;
    }
    const chars = [...run];
    for (let i = 0; i < chars.length; i++) {
      out.push(chars[i]!);
      if (i + 1 < chars.length) out.push(chars[i]! + chars[i + 1]!);
    }
  }
  return out;
}
