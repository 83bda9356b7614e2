import path from 'node:path';
import type { SnapshotManifest } from '../index/store/snapshot-manifest';
import type { KnowledgeBase } from '../shared/chat-protocol';

/**
 * What the chat discloses about the knowledge base an answer rests on, from the active snapshot's
 * manifest: how many documents, which could not be indexed and why, keyword-only or partial. Pure.
 */
export function knowledgeBaseOf(manifest: SnapshotManifest | null, building: boolean): KnowledgeBase {
  if (!manifest) return { snapshot_id: null, state: building ? 'building' : 'none', documents: 0, failed: [] };
  const failed = manifest.failed_documents.map((f) => ({ title: path.basename(f.path), path: f.path, reason: f.message }));
  const state = building ? 'building' : manifest.state === 'ready_partial' || failed.length > 0 ? 'partial' : manifest.embedding.provider === 'none' ? 'keyword_only' : 'ready';
  return { snapshot_id: manifest.id, state, documents: manifest.stats.documents, failed };
}
