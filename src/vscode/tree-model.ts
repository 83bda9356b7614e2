import path from 'node:path';
import { isWithin } from '../common/path-within';
import type { FailedDocument } from '../shared/failed-document';
import { pageRanges } from '../index/parse/pdf-pages';
import type { SkippedEntry } from '../index/sources/secret-files';
import type { Source } from '../index/sources/sources';
import type { ManifestDocument, SnapshotManifest } from '../index/store/snapshot-manifest';
import { showControls } from '../shared/inert-text';

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
  contextValue: 'source' | 'document' | 'failedDocument' | 'skipped' | 'snapshot' | 'activeSnapshot';
  /** A file to open on click (documents), or null. */
  file: string | null;
  children: TreeNode[];
}

type T = (message: string, ...args: Array<string | number>) => string;

const within = (p: string, s: Source) => isWithin(s.path, p);

/** Why an entry was not read, in words. */
function skippedWhy(reason: SkippedEntry['reason'], t: T): string {
  return reason === 'secret_looking' ? t('looks like a secret') : reason === 'outside_source' ? t('a link out of the source') : t('.gitignore');
}

/**
 * Each source with its documents in the active snapshot (title, blocks), its failed documents (stage,
 * code and reason) and, folded under one node, what it holds that was not read on purpose (secret-looking
 * files, links out of it, .gitignored entries): documents first, each group in path order.
 */
export function sourceNodes(sources: readonly Source[], active: Pick<SnapshotManifest, 'documents' | 'failed_documents'> & { skipped?: readonly SkippedEntry[] } | null, t: T): TreeNode[] {
  return sources.map((s) => inertNode(sourceNode(s, active, t)));
}

/**
 * Titles, file names and failure reasons come from the documents: bidi controls in them are shown as
 * visible tags, as in the chat, so a tree row reads in the order it is stored.
 */
function inertNode(n: TreeNode): TreeNode {
  return { ...n, label: showControls(n.label), description: showControls(n.description), tooltip: showControls(n.tooltip), children: n.children.map(inertNode) };
}

function sourceNode(s: Source, active: Pick<SnapshotManifest, 'documents' | 'failed_documents'> & { skipped?: readonly SkippedEntry[] } | null, t: T): TreeNode {
  const docs: ManifestDocument[] = (active?.documents ?? []).filter((d) => within(d.path, s)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const failed: FailedDocument[] = (active?.failed_documents ?? []).filter((f) => within(f.path, s));
  // A document indexed without some pages (scans with OCR off, damaged pages) is shown once, as partial, with what was not read.
  const partial = new Map(failed.filter((f) => f.pages && docs.some((d) => d.path === f.path)).map((f) => [f.path, f]));
  const children: TreeNode[] = [
    ...docs.map((d): TreeNode => {
      const f = partial.get(d.path);
      const unread = d.unread_pages?.map((u) => u.page) ?? f?.pages ?? [];
      if (!unread.length) return { id: `doc:${d.doc_id}`, label: d.title, description: t('{0} blocks', d.blocks), tooltip: `${d.path}\n${t('{0} blocks, {1} tokens', d.blocks, d.tokens)}`, icon: 'file', contextValue: 'document', file: d.path, children: [] };
      return { id: `doc:${d.doc_id}`, label: d.title, description: t('{0} blocks, partial: pages {1} not read', d.blocks, pageRanges(unread)), tooltip: `${d.path}\n${t('{0} blocks, {1} tokens', d.blocks, d.tokens)}\n${f?.message ?? ''}`, icon: 'warning', contextValue: 'document', file: d.path, children: [] };
    }),
    ...failed.filter((f) => !partial.has(f.path)).map((f): TreeNode => ({ id: `failed:${f.path}`, label: path.basename(f.path), description: t('failed: {0}/{1}', f.stage, f.code), tooltip: `${f.path}\n${f.message}`, icon: 'error', contextValue: 'failedDocument', file: f.path, children: [] })),
  ];
  const skipped = (active?.skipped ?? []).filter((k) => within(k.path, s));
  if (skipped.length) {
    const entries = skipped.map((k): TreeNode => ({ id: `skipped:${k.path}`, label: path.basename(k.path), description: skippedWhy(k.reason, t), tooltip: `${k.path}\n${t('Not read and never sent to the embedding service.')}`, icon: k.reason === 'secret_looking' ? 'lock' : k.kind === 'folder' ? 'folder' : 'file', contextValue: 'skipped', file: null, children: [] }));
    children.push({ id: `skipped-of:${s.id}`, label: t('Not read ({0})', skipped.length), description: '', tooltip: t('Entries of this source DocQA leaves out on purpose: secret-looking files, links out of the source, .gitignored entries.'), icon: 'eye-closed', contextValue: 'skipped', file: null, children: entries });
  }
  const whole = failed.length - partial.size;
  const summary = active ? t('{0} documents', docs.length) + (partial.size ? ` (${t('{0} partial', partial.size)})` : '') + (whole ? `, ${t('{0} failed', whole)}` : '') : t('not indexed yet');
  return { id: `source:${s.id}`, label: s.label, description: summary, tooltip: s.path, icon: s.kind === 'folder' ? 'folder' : 'file', contextValue: 'source', file: null, children };
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
