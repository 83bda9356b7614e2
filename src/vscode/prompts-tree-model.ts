import type { BundleListing } from '../harness/prompt-store';
import type { ListNode } from './traces-tree-model';

type T = (message: string, ...args: Array<string | number>) => string;

/**
 * The Prompts view as data (pure): the release baselines (read-only) first, then the experiments, each
 * with its content hash, state and parent; the bundle `ask` uses is marked. A click opens its template
 * (a baseline's read-only). Context values drive the menus: only a draft can be frozen or edited.
 */
export function promptNodes(bundles: readonly BundleListing[], t: T): ListNode[] {
  const anyActive = bundles.some((b) => b.active);
  const ordered = [...bundles.filter((b) => b.origin === 'baseline'), ...bundles.filter((b) => b.origin !== 'baseline')];
  return ordered.map((b) => {
    const used = b.active || (!anyActive && b.origin === 'baseline');
    const state = b.origin === 'baseline' ? t('release baseline') : b.frozen ? t('frozen') : t('draft');
    const contextValue = b.origin === 'baseline' ? 'promptBaseline' : b.frozen ? 'promptFrozen' : 'promptDraft';
    const description = [state, b.language, b.version, b.hash ? b.hash.slice(0, 12) : '', b.problem ? t('problem: {0}', b.problem) : ''].filter(Boolean).join(' · ');
    const tooltip = [
      b.id,
      b.hash ? t('content hash {0}', b.hash) : '',
      t('parent: {0}', b.parent ?? '-'),
      used ? (b.active ? t('used by every question') : t('used for questions in its language')) : '',
      b.problem ?? '',
    ]
      .filter(Boolean)
      .join('\n');
    return {
      id: `prompt:${b.id}`,
      label: `${used ? '● ' : ''}${b.id}`,
      description,
      tooltip,
      icon: b.problem ? 'warning' : b.origin === 'baseline' ? 'lock' : b.frozen ? 'lock-small' : 'edit',
      contextValue,
      command: b.template ? { id: 'docqa.editPrompt', args: [{ id: `prompt:${b.id}` }] } : null,
    };
  });
}
