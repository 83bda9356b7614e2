/**
 * Tokens for the keyword (BM25) side. Latin, digits and other alphabetic scripts: NFKC, lower-cased
 * words. Han, kana and Hangul: every character and every adjacent pair (unigrams + bigrams) are indexed,
 * so Chinese needs no dictionary, a two-character word always matches itself and a one-character query
 * finds its character; a query is scored by the weighted terms of queryTerms. Orama's default tokenizer
 * returns nothing for CJK; this is the measured replacement (see README, "Index and snapshots").
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
const CJK_START = new RegExp(`^[${CJK}]`, 'u');

/** Index-time tokens of a text, in order (a term once per occurrence). */
export function keywordTokens(text: string): string[] {
  const out: string[] = [];
  const norm = text.normalize('NFKC').toLowerCase();
  for (const m of norm.matchAll(SEGMENT)) {
    const run = m[0];
    if (!CJK_START.test(run)) {
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

/** A query term and how much it counts (a multiplier on its BM25 contribution). */
export interface QueryTerm {
  term: string;
  weight: number;
}

/** Whether a term comes from a CJK run (a character or a pair), not a word of another script. */
export function isCjkTerm(term: string): boolean {
  return CJK_START.test(term);
}

/**
 * How much one CJK character of a query counts, a word of another script counting 1: Chinese words are
 * about two characters long, so a run of n characters weighs about what its n/2 words would. Without it
 * the Chinese half of `volatile 关键字的作用` (11 tokens then) outvoted its one English word. Measured
 * (notes set, section recall@1): 0.33-0.5 → 0.94, 0.75-1 → 0.925; CMRC 2018 and SQuAD do not move; at 1
 * the volatile query of test/fixtures/notes finds the page's introduction first again.
 */
export const CJK_CHAR_WEIGHT = 0.5;

/**
 * The distinct terms a query is scored by, in order of first appearance, each with its weight (the
 * largest where a term recurs). A CJK run of n ≥ 2 characters is scored by its n − 1 bigrams, each
 * weighing n·CJK_CHAR_WEIGHT/(n − 1); its unigrams (indexed for every character) stand in only for a
 * bigram the collection does not hold (`known` is false), half its weight each: a character pair no text
 * has still finds its characters, while the common characters of question words (是, 什, 么) add no noise
 * otherwise (measured on CMRC 2018: recall@5 0.994 with all unigrams, 0.997 bigrams alone, 0.999 with
 * the fallback). A lone CJK character is scored as itself.
 */
export function queryTerms(query: string, known: (term: string) => boolean): QueryTerm[] {
  return termsOfRuns(queryRuns(query), known);
}

/**
 * A query as the keyword side reads it: its runs (words, CJK runs) after NFKC and lower-casing, each
 * once, in order of first appearance. Everything the keyword ranking does with a query it does with
 * these, so two queries with the same runs are ranked alike (the duplicate-scope key of search_blocks).
 */
export function queryRuns(query: string): string[] {
  const runs = new Set<string>();
  for (const m of query.normalize('NFKC').toLowerCase().matchAll(SEGMENT)) runs.add(m[0]);
  return [...runs];
}

function termsOfRuns(runs: readonly string[], known: (term: string) => boolean): QueryTerm[] {
  const weights = new Map<string, number>();
  const add = (term: string, weight: number) => {
    const w = weights.get(term);
    if (w === undefined || weight > w) weights.set(term, weight);
  };
  for (const run of runs) {
    if (!CJK_START.test(run)) {
      add(run, 1);
      continue;
    }
    const chars = [...run];
    if (chars.length === 1) {
      add(run, CJK_CHAR_WEIGHT);
      continue;
    }
    const w = (chars.length * CJK_CHAR_WEIGHT) / (chars.length - 1);
    for (let i = 0; i + 1 < chars.length; i++) {
      const pair = chars[i]! + chars[i + 1]!;
      if (known(pair)) add(pair, w);
      else {
        add(chars[i]!, w / 2);
        add(chars[i + 1]!, w / 2);
      }
    }
  }
  return [...weights].map(([term, weight]) => ({ term, weight }));
}
