import { DocQaError } from '../common/errors';
import type { LoadedSnapshot } from '../index/store/snapshot-store';
import type { RunScope } from '../harness/run-scope';
import type { QuestionScope, ScopeSummary, ScopeTargets } from '../shared/question-scope';

/** A question scope (its schemas: src/shared/question-scope.ts) resolved against a snapshot, and what `@` offers on one. */

/**
 * The run scope: the named documents and every document of the named sources, in snapshot order,
 * without repeats. A name the snapshot does not have is refused with what it does have (a rebuild
 * may have removed it): nothing is asked on a scope that silently lost part of itself.
 */
export function resolveScope(snapshot: LoadedSnapshot, scope: QuestionScope): { run: RunScope; summary: ScopeSummary } {
  const ids = new Set(scope.doc_ids);
  const labels = new Set(scope.sources);
  const known = new Set(snapshot.documents.map((d) => d.doc_id));
  const sources = new Set(snapshot.documents.map((d) => d.source_label));
  const missingDocs = scope.doc_ids.filter((id) => !known.has(id));
  const missingSources = scope.sources.filter((l) => !sources.has(l));
  if (missingDocs.length || missingSources.length) {
    const what = [...missingSources.map((l) => `source “${l}”`), ...missingDocs.map((id) => `document ${id}`)].join(', ');
    throw new DocQaError('scope_not_found', `${what} is not in the knowledge base any more (snapshot ${snapshot.manifest.id}); pick the scope again with @`);
  }
  const docs = snapshot.documents.filter((d) => ids.has(d.doc_id) || labels.has(d.source_label));
  if (docs.length === 0) throw new DocQaError('scope_not_found', `the scope has no documents in snapshot ${snapshot.manifest.id}; pick another with @`);
  return {
    run: { doc_ids: docs.map((d) => d.doc_id) },
    summary: { documents: docs.map((d) => ({ doc_id: d.doc_id, title: d.title })), sources: [...scope.sources], of: snapshot.documents.length },
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function scopeTargets(snapshot: LoadedSnapshot): ScopeTargets {
  const counts = new Map<string, number>();
  for (const d of snapshot.documents) counts.set(d.source_label, (counts.get(d.source_label) ?? 0) + 1);
  return {
    snapshot_id: snapshot.manifest.id,
    sources: [...counts].sort(([a], [b]) => cmp(a, b)).map(([label, documents]) => ({ label, documents })),
    documents: snapshot.documents
      .map((d) => ({ doc_id: d.doc_id, title: d.title, source_label: d.source_label, file: d.path.split(/[\\/]/).pop() ?? d.path }))
      .sort((a, b) => cmp(a.title, b.title) || cmp(a.doc_id, b.doc_id)),
  };
}

