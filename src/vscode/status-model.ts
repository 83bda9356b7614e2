/**
 * What the status bar says about the knowledge base, from application-layer state. Pure (no `vscode`
 * import), so it is tested in plain Node; status-bar.ts shows it.
 */
export interface StatusInput {
  /** The active snapshot's state, or null when none is active. */
  snapshot: { state: 'ready' | 'ready_partial' | 'failed' | 'building'; failed: number; keywordOnly: boolean } | null;
  /** The build in this window, if one runs or is paused. */
  build: { state: 'running' | 'paused'; phase: string; done: number; total: number } | null;
}

export interface StatusView {
  /** Codicon and words, e.g. "$(sync~spin) DocQA: building 42%". */
  text: string;
  tooltip: string;
}

type T = (message: string, ...args: Array<string | number>) => string;

/** `t` is the host's translator (vscode.l10n.t), an identity with {0} substitution in tests. */
export function statusView(s: StatusInput, t: T): StatusView {
  if (s.build) {
    const pct = s.build.total > 0 ? Math.floor((s.build.done / s.build.total) * 100) : 0;
    if (s.build.state === 'paused') return { text: `$(debug-pause) ${t('DocQA: paused')}`, tooltip: t('The index build is paused ({0}, {1} of {2}). Resume it with "DocQA: Resume Build".', s.build.phase, s.build.done, s.build.total) };
    return { text: `$(sync~spin) ${t('DocQA: building {0}%', pct)}`, tooltip: t('Building the index: {0}, {1} of {2}.', s.build.phase, s.build.done, s.build.total) };
  }
  if (!s.snapshot) return { text: `$(book) ${t('DocQA: no index')}`, tooltip: t('No index yet: add a folder and build it.') };
  const mode = s.snapshot.keywordOnly ? ` · ${t('keyword-only')}` : '';
  if (s.snapshot.state === 'ready_partial') return { text: `$(warning) ${t('DocQA: partial, {0} failed', s.snapshot.failed)}${mode}`, tooltip: t('{0} documents could not be indexed; answers say so.', s.snapshot.failed) };
  if (s.snapshot.state === 'ready') return { text: `$(check) ${t('DocQA: ready')}${mode}`, tooltip: t('The index is ready.') };
  return { text: `$(error) ${t('DocQA: index {0}', s.snapshot.state)}`, tooltip: t('The active index cannot be used.') };
}
