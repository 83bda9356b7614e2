import type { TraceSummary } from '../trace/trace-store';
import { showControls } from '../shared/inert-text';
import { releaseStateOf } from '../shared/release-states';

/**
 * The Traces view as data (pure: tested in plain Node; list-tree.ts makes TreeItems of it): recent runs,
 * newest first, each with its question, time, release status and tokens; a click opens the viewer.
 */
export interface ListNode {
  id: string;
  label: string;
  description: string;
  tooltip: string;
  /** A codicon id. */
  icon: string;
  /** What the context menus key on (package.json `viewItem == …`). */
  contextValue: string;
  /** The command a click runs, with its arguments. */
  command: { id: string; args: unknown[] } | null;
}

type T = (message: string, ...args: Array<string | number>) => string;

/** How many runs the view lists (the rest are a quick pick away: "DocQA: Open Trace…"). */
export const TRACES_SHOWN = 50;

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 19) : '');
const oneLine = (s: string, max = 80) => {
  const line = showControls(s.replace(/\s+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function icon(s: TraceSummary): string {
  if (!s.status) return 'warning';
  // A status this DocQA does not know (a newer one's trace): an answer that says what it could not do.
  return releaseStateOf(s.status)?.icon ?? 'info';
}

export function traceNodes(traces: readonly TraceSummary[], t: T): ListNode[] {
  return traces.slice(0, TRACES_SHOWN).map((s) => {
    const tokens = s.tokens ? t('{0} tokens', s.tokens.prompt + s.tokens.completion) : '';
    const status = s.status ?? t('incomplete');
    const parts = [when(s.started_at), status, tokens, s.partial ? t('partial') : ''].filter(Boolean);
    return {
      id: `trace:${s.run_id}`,
      label: s.question ? oneLine(s.question) : t('(incomplete trace)'),
      description: parts.join(' · '),
      tooltip: [s.question ? showControls(s.question) : t('(incomplete trace)'), s.run_id, `${status}${s.mode ? ` · ${s.mode}` : ''}`, s.tokens ? t('tokens: {0} prompt + {1} completion', s.tokens.prompt, s.tokens.completion) : ''].filter(Boolean).join('\n'),
      icon: icon(s),
      contextValue: 'trace',
      command: { id: 'docqa.openTrace', args: [s.run_id] },
    };
  });
}
