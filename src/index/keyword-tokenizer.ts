/**
 * Tokens for the keyword (BM25) side, identical at index and query time. Latin, digits and other
 * alphabetic scripts: NFKC, lower-cased words. Han, kana and Hangul: every character and every adjacent
 * pair (unigrams + bigrams), so Chinese needs no dictionary and a two-character word always matches
 * itself. Orama's default tokenizer returns nothing for CJK; this is the measured replacement (see
 * README, "Index and snapshots").
 *
 * Version 2: a word stops where a CJK run starts. Han is a letter (\p{L}) too, so `volatile关键字`, `3月`
 * and `force开发的战国无双系列` were one token each, their Chinese unsearchable (CMRC 2018 recall@5 0.956
 * against 0.996 for a plain bigram BM25). The prolonged sound mark ー belongs to the kana runs it joins.
 * Blocks are indexed with their headings (title and section path) as a second field: bm25-index.ts.
 */
export const KEYWORD_TOKENIZER_NAME = 'docqa-keyword@2 (nfkc-lower words + cjk uni+bigrams; text and heading fields)';

// ー (U+30FC) is of no script of its own: without it コーヒー was three runs.
const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC`;
const SEGMENT = new RegExp(String.raw`[${CJK}]+|[[\p{L}\p{N}\p{M}]--[${CJK}]]+`, 'gv');
const CJK_RUN = new RegExp(`^[${CJK}]`, 'u');

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
