import type { AgentResult } from '../../src/harness/agent-result';
import type { ProgressSnapshot } from '../../src/harness/progress-snapshot';
import type { StepScope } from '../../src/harness/step-words';
import type { KnowledgeBase } from '../../src/shared/chat-protocol';
import type { Strings } from './strings';

/**
 * The release, the fallback's "what was checked", the completeness statement and the knowledge-base
 * disclosure in words: pure functions of the result (and of the knowledge base), built only from the
 * run's verified progress, never from the model's text.
 */
const lastPart = (p: string) => p.split(' > ').pop()!.trim();

function where(scope: StepScope, s: Strings): string {
  const doc = scope.documents.titles[0] ?? '';
  if (scope.sections.length === 1) return `§ ${lastPart(scope.sections[0]!)}`;
  return s.wholeDocument(doc);
}

export function headline(r: AgentResult, s: Strings): string {
  const status = s.status[r.release.status] ?? r.release.status;
  switch (r.release.status) {
    case 'SUCCESS':
      return status;
    case 'CANCELLED':
      return `${status} · ${s.cancelled}`;
    case 'FALLBACK':
      return `${status} · ${r.release.reason === 'MISSING_REQUIRED_CONTEXT' ? s.missingContext : s.insufficient}`;
    case 'FAILED':
      return `${status} · ${r.release.detail ?? r.release.reason ?? s.failedGeneric}`;
  }
}

/** "searched 3 ways; scanned 42 of 42 documents for “X”: 0 hits; read all 12 blocks of § 3". */
export function checkedSummary(p: ProgressSnapshot, s: Strings): string {
  const parts: string[] = [];
  const searches = p.facts.filter((f) => f.scope.tool === 'search_blocks').length;
  if (searches) parts.push(s.searchedWays(searches));
  for (const f of p.facts) {
    if (f.scope.tool === 'scan_term') parts.push((f.scope.documents.scoped ? s.scannedScoped : s.scanned)(f.scope.documents.count, f.scope.documents.of, f.scope.text ?? '', f.outcome.hits));
    if (f.scope.tool === 'list_blocks') parts.push(s.readBlocks(f.outcome.blocks, where(f.scope, s)));
  }
  return parts.join('; ');
}

/** The scope a list_blocks or scan_term answer actually covered; empty when it rests on neither. */
export function completeness(p: ProgressSnapshot, s: Strings): string[] {
  const out: string[] = [];
  for (const f of p.facts) {
    if (f.outcome.kind === 'error' || f.outcome.kind === 'not_admitted') continue;
    if (f.scope.tool === 'list_blocks') out.push(s.allBlocksOf(f.outcome.blocks, where(f.scope, s)));
    if (f.scope.tool === 'scan_term') out.push((f.scope.documents.scoped ? s.docsScannedScoped : s.docsScanned)(f.scope.documents.count, f.scope.documents.of, f.scope.text ?? ''));
  }
  return [...new Set(out)];
}

/** The partial-knowledge-base disclosure for an answer made on that snapshot, or null. */
export function partialDisclosure(kb: KnowledgeBase | null, snapshotId: string | null, s: Strings): string | null {
  if (!kb || kb.failed.length === 0 || (snapshotId !== null && kb.snapshot_id !== snapshotId)) return null;
  const list = kb.failed.map((f) => `${f.title} (${f.reason})`).join(', ');
  return s.partialKb(kb.failed.length, list, kb.documents);
}
