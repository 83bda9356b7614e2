import { isCjkTerm } from './keyword-tokenizer';

/** BM25's idf: ln(1 + (N - df + 0.5) / (df + 0.5)). */
export const idfOf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * A mixed query (`volatile 关键字的作用`): its rare words of other scripts weigh, together, as much as its
 * CJK part. A query names its topic in the Latin term and fills in with Chinese; scored term by term, the
 * filler's five pairs (关键, 键字, 字的, 的作, 作用), each fairly common, outvoted the one rare word and
 * ranked sections that merely say 关键字的作用 first. A word counts as rare when its idf is above the
 * CJK terms' (weighted) mean; a common one (TCP in network notes) keeps its weight. Weights are
 * raised, never lowered: a query that is all one script scores as before.
 */
export function balanceMixed<T extends { term: string; weight: number; idf: number }>(terms: T[]): T[] {
  let cjkMass = 0;
  let cjkWeight = 0;
  for (const t of terms) {
    if (!isCjkTerm(t.term) || t.idf <= 0) continue;
    cjkMass += t.weight * t.idf;
    cjkWeight += t.weight;
  }
  if (cjkWeight === 0) return terms;
  const mean = cjkMass / cjkWeight;
  const rare = terms.filter((t) => !isCjkTerm(t.term) && t.idf > mean);
  const rareMass = rare.reduce((m, t) => m + t.weight * t.idf, 0);
  if (rareMass === 0 || rareMass >= cjkMass) return terms;
  const scale = cjkMass / rareMass;
  return terms.map((t) => (rare.includes(t) ? { ...t, weight: t.weight * scale } : t));
}
