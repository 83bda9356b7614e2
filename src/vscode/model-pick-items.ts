import { type LocalModel, ollamaName } from '../app/local-models/local-server';
import type { ModelListing } from '../app/local-models/model-list';

/**
 * The quick pick of a model, from the server's list: chat and embedding models apart (a service that
 * does not say which is which offers all its models in both), the configured one first and marked.
 * Pure (no `vscode` import), tested in plain Node; `t` is vscode.l10n.t.
 */
type T = (message: string, ...args: Array<string | number>) => string;

export interface ModelPickItem {
  label: string;
  description: string;
  detail: string;
  id: string;
}

const n = (x: number) => x.toLocaleString('en-US');

export function modelPickItems(listing: ModelListing, which: 'chat' | 'embedding', current: string | null, t: T): ModelPickItem[] {
  const models: LocalModel[] = which === 'chat' ? [...listing.chat, ...listing.unknown] : [...listing.embedding, ...(listing.server ? [] : listing.unknown)];
  // Ollama names a model without a tag as `:latest`: `qwen3` is `qwen3:latest`.
  const norm = (id: string) => (listing.server === 'ollama' ? ollamaName(id) : id);
  const isCurrent = (id: string) => current !== null && norm(id) === norm(current);
  const items = models.map((m) => ({
    label: isCurrent(m.id) ? `$(check) ${m.id}` : m.id,
    description: [m.details, m.model_max !== null ? t('up to {0} tokens', n(m.model_max)) : null, which === 'embedding' && m.embedding_length !== null ? t('{0} dimensions', n(m.embedding_length)) : null].filter(Boolean).join(' · '),
    detail: m.loaded ? (m.running_context !== null ? t('loaded, with a {0}-token window', n(m.running_context)) : t('loaded')) : m.kind === 'unknown' ? t('the service does not say what kind of model this is') : '',
    id: m.id,
  }));
  return [...items.filter((i) => isCurrent(i.id)), ...items.filter((i) => !isCurrent(i.id))];
}
