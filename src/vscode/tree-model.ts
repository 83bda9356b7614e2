import path from 'node:path';
import type { FailedDocument } from '../index/model';
import type { Source } from '../index/sources/sources';
import type { ManifestDocument, SnapshotManifest } from '../index/store/snapshot-manifest';

/**
 * The Sources and Snapshots trees as data, from application-layer state. Pure (no `vscode` import), so
 * it is tested in plain Node; tree-views.ts turns nodes into TreeItems.
 */
export interface TreeNode {
  id: string;
  label: string;
  description: string;
  tooltip: string;
  /** A codicon id. */
  icon: string;
  /** What the context menus key on (package.json `viewItem == …`). */
  contextValue: 'source' | 'document' | 'failedDocument' | 'snapshot' | 'activeSnapshot';
  /** A file to open on click (documents), or null. */
  file: string | null;
  children: TreeNode[];
}

type T = (message: string, ...args: Array<string | number>) => string;

const within = (p: string, s: Source) => p === s.path || p.startsWith(s.path + path.sep);

/**
 * Each source with its documents in the active snapshot (title, blocks) and its failed documents (stage,
 * code and reason), documents first, each group in path order.
 */
export function sourceNodes(sources: readonly Source[], active: Pick<SnapshotManifest, 'documents' | 'failed_documents'> | null, t: T): TreeNode[] {
  return sources.map((s) => {
    const docs: ManifestDocument[] = (active?.documents ?? []).filter((d) => within(d.path, s)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const failed: FailedDocument[] = (active?.failed_documents ?? []).filter((f) => within(f.path, s));
    const children: TreeNode[] = [
      ...docs.map((d): TreeNode => ({ id: `doc:${d.doc_id}`, label: d.title, description: t('{0} blocks', d.blocks), tooltip: `${d.path}\n${t('{0} blocks, {1} tokens', d.blocks, d.tokens)}`, icon: 'file', contextValue: 'document', file: d.path, children: [] })),
      ...failed.map((f): TreeNode => ({ id: `failed:${f.path}`, label: path.basename(f.path), description: t('failed: {0}/{1}', f.stage, f.code), tooltip: `${f.path}\n${f.message}`, icon: 'error', contextValue: 'failedDocument', file: f.path, children: [] })),
    ];
    const summary = active ? t('{0} documents', docs.length) + (failed.length ? `, ${t('{0} failed', failed.length)}` : '') : t('not indexed yet');
    return { id: `source:${s.id}`, label: s.label, description: summary, tooltip: s.path, icon: s.kind === 'folder' ? 'folder' : 'file', contextValue: 'source', file: null, children };
  });
}

/** Snapshots newest first, the active one marked; state, documents, failures, when, embedding model. */
export function snapshotNodes(snapshots: ReadonlyArray<Pick<SnapshotManifest, 'id' | 'state' | 'created_at' | 'stats' | 'embedding'>>, activeId: string | null, t: T): TreeNode[] {
  return snapshots.map((m) => {
    const model = m.embedding.provider === 'none' ? t('keyword-only') : m.embedding.model;
    const active = m.id === activeId;
    const failed = m.stats.failed_documents ? `, ${t('{0} failed', m.stats.failed_documents)}` : '';
    return {
      id: `snapshot:${m.id}`,
      label: `${active ? '● ' : ''}${m.created_at.replace('T', ' ').slice(0, 16)}`,
      description: `${m.state} · ${t('{0} documents', m.stats.documents)}${failed} · ${model}`,
      tooltip: `${m.id}${active ? ` (${t('active')})` : ''}`,
      icon: active ? 'pass-filled' : m.state === 'failed' ? 'error' : 'history',
      contextValue: active ? 'activeSnapshot' : 'snapshot',
      file: null,
      children: [],
    };
  });
}

/** Which welcome the views show (package.json `viewsWelcome` keys on these context keys). */
export interface WelcomeState {
  hasChatKey: boolean;
  hasSources: boolean;
  hasSnapshot: boolean;
}
