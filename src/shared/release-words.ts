import type { AnswerWords } from './answer-words';
import type { KnowledgeBase } from './chat-protocol';
import { RELEASE_STATES } from './release-states';
import type { AgentResult, ProgressSnapshot } from './run-result';
import { type Tally, tallyWords } from './step-record';

/**
 * The release, the fallback's "what was checked", the completeness statement and the knowledge-base
 * disclosure in words: pure functions of the result (and of the knowledge base), built only from the
 * run's verified progress, never from the model's text. The chat view and @docqa both say them.
 */

/** The release in one line: its state's name, and what the state says of it. */
export function headline(r: AgentResult, s: AnswerWords): string {
  const state = RELEASE_STATES[r.release.status];
  const says = state.says(r.release);
  return says ? `${state.label[s.lang]} · ${says[s.lang]}` : state.label[s.lang];
}

/**
 * "searched 3 ways; scanned 42 of 42 documents for “X”: 0 hits; read all 12 blocks of § 3": the steps that
 * count together first (by their tally), then each step's own words, as its tool wrote them.
 */
export function checkedSummary(p: ProgressSnapshot, s: AnswerWords): string {
  const tallies = new Map<string, { tally: Tally; n: number }>();
  for (const f of p.facts) {
    const t = f.outcome.tally;
    if (!t) continue;
    const seen = tallies.get(t.one.en);
    if (seen) seen.n++;
    else tallies.set(t.one.en, { tally: t, n: 1 });
  }
  const parts = [...tallies.values()].map(({ tally, n }) => tallyWords(tally, n, s.lang));
  for (const f of p.facts) if (f.outcome.checked) parts.push(f.outcome.checked[s.lang]);
  return parts.join('; ');
}

/** The complete scopes an answer rests on (whole sections read, documents scanned); empty when it rests on none. */
export function completeness(p: ProgressSnapshot, s: AnswerWords): string[] {
  const out: string[] = [];
  for (const f of p.facts) {
    if (f.outcome.kind === 'error' || f.outcome.kind === 'not_admitted') continue;
    if (f.outcome.covers) out.push(f.outcome.covers[s.lang]);
  }
  return [...new Set(out)];
}

/** The partial-knowledge-base disclosure for an answer made on that snapshot, or null. */
export function partialDisclosure(kb: KnowledgeBase | null, snapshotId: string | null, s: AnswerWords): string | null {
  if (!kb || kb.failed.length === 0 || (snapshotId !== null && kb.snapshot_id !== snapshotId)) return null;
  const list = kb.failed.map((f) => `${f.title} (${f.reason})`).join(', ');
  return s.partialKb(kb.failed.length, list, kb.documents);
}
