import type { EgressPlan } from '../index/store/egress-consent';

/**
 * The confirmation shown before a source's text first goes to an embedding host: a modal message with
 * the counts and the host, and a detail naming what was not read. Pure (no `vscode` import), tested in
 * plain Node; `t` is vscode.l10n.t.
 */
type T = (message: string, ...args: Array<string | number>) => string;

/** Skipped entries the detail names before "and N more" (a modal has no scroll bar). */
const NAMED = 8;

export function egressPrompt(plan: EgressPlan, t: T): { message: string; detail: string } {
  const labels = plan.sources.map((s) => `“${s.label}”`).join(', ');
  const message = t('DocQA: send {0} files ({1} blocks, about {2} tokens at most) of {3} to {4} to be embedded?', plan.files, plan.blocks, plan.tokens.toLocaleString('en-US'), labels, plan.host);
  const reason = (r: EgressPlan['skipped'][number]['reason']) => (r === 'secret_looking' ? t('looks like a secret') : r === 'outside_source' ? t('a link out of the source') : t('.gitignore'));
  const lines = [t('Model: {0}. Asked once per source and host; later builds send only what changed.', plan.model)];
  if (plan.skipped.length) {
    lines.push('', t('Not read and not sent ({0}):', plan.skipped.length));
    for (const k of plan.skipped.slice(0, NAMED)) lines.push(`• ${k.path} (${reason(k.reason)})`);
    if (plan.skipped.length > NAMED) lines.push(t('… and {0} more', plan.skipped.length - NAMED));
  }
  return { message, detail: lines.join('\n') };
}

/** Said instead of asking when the embedding endpoint is a local model server on this machine: nothing leaves it. */
export function localEgressWords(e: { host: string; model: string; sources: readonly string[]; files: number; blocks: number; tokens: number }, t: T): string {
  return t('DocQA: {0} files ({1} blocks, about {2} tokens) of {3} are embedded by {4} at {5}, on this machine: nothing leaves it.', e.files, e.blocks, e.tokens.toLocaleString('en-US'), e.sources.map((s) => `“${s}”`).join(', '), e.model, e.host);
}
