import { useState } from 'preact/hooks';
import type { AgentResult, Ledger, RemovedCitation } from '../../src/shared/run-result';
import type { ScopeSummary } from '../../src/shared/question-scope';
import type { KnowledgeBase, UiLang } from '../../src/shared/chat-protocol';
import { showControls } from '../../src/shared/inert-text';
import { ledgerItems, localeNumber } from '../../src/shared/ledger-words';
import { RELEASE_STATES } from '../../src/shared/release-states';
import { checkedSummary, completeness, headline, partialDisclosure } from '../../src/shared/release-words';
import type { Strings } from './strings';
import { useController, useStrings } from './use-chat';

/** What a released answer says about itself: the release, what was checked, what was covered, what is missing. */
export function ReleaseView({ result, kb, snapshotId }: { result: AgentResult; kb: KnowledgeBase | null; snapshotId: string | null }) {
  const S = useStrings();
  const status = result.release.status;
  const state = RELEASE_STATES[status];
  const checked = state.evidence === 'checked' ? checkedSummary(result.progress, S) : '';
  const covered = state.evidence === 'covered' ? completeness(result.progress, S) : [];
  const partial = partialDisclosure(kb, snapshotId, S);
  return (
    <div class={`release release-${status.toLowerCase()} tone-${state.tone}`}>
      <p class="release-head">
        <span class={`codicon codicon-${state.icon}`} aria-hidden="true"></span> <strong>{showControls(headline(result, S))}</strong>
      </p>
      {checked && (
        <p class="checked">
          {S.checked}: {showControls(checked)}
        </p>
      )}
      {covered.length > 0 && (
        <p class="completeness">
          {S.completeness}: {showControls(covered.join('; '))}
        </p>
      )}
      {partial && <p class="partial-kb">{showControls(partial)}</p>}
      {state.connectionTest && <TestConnection S={S} />}
    </div>
  );
}

function TestConnection({ S }: { S: Strings }) {
  const ctl = useController();
  const [state, set] = useState<{ busy: boolean; message: string | null }>({ busy: false, message: null });
  return (
    <p class="test-connection">
      <button
        type="button"
        class="secondary"
        disabled={state.busy}
        onClick={async () => {
          set({ busy: true, message: null });
          set({ busy: false, message: await ctl.testConnection() });
        }}
      >
        <span class="codicon codicon-plug" aria-hidden="true"></span> {state.busy ? S.testing : S.testConnection}
      </button>{' '}
      {state.message && <span role="status">{showControls(state.message)}</span>}
    </p>
  );
}

export function RemovedView({ removed }: { removed: readonly RemovedCitation[] }) {
  const S = useStrings();
  if (removed.length === 0) return null;
  return (
    <div class="removed-list">
      <p>{S.removedHeading}</p>
      <ul>
        {removed.map((r, i) => (
          <li key={i}>
            <span class="cite removed">{S.removedCite}</span> {showControls(r.ref)}: {S.removedReason[r.reason] ?? r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

const SERVERS: Record<string, string> = { ollama: 'Ollama', lmstudio: 'LM Studio' };

function windowWords(S: ReturnType<typeof useStrings>, w: NonNullable<Ledger['context_window']>, lang: UiLang): string {
  const n = (x: number) => localeNumber(x, lang);
  return S.ledgerWindow(SERVERS[w.server] ?? w.server, w.model, n(w.served), n(w.configured), n(w.max_context_tokens), w.lowered, w.source === 'num_ctx');
}

/** The run's spending against its budgets, under every answer, and its trace. */
export function LedgerView({ ledger, stopReason, durationMs, runId, bundle, scope = null, lang }: { ledger: Ledger; stopReason: string | null; durationMs: number | null; runId: string | null; bundle: { id: string; version: string; hash: string } | null; scope?: ScopeSummary | null; lang: UiLang }) {
  const S = useStrings();
  const ctl = useController();
  const items = [
    // Which documents were searched: a scoped question says so first.
    ...(scope ? [S.ledgerScope(scope.documents.map((d) => d.title), scope.of)] : []),
    ...ledgerItems(ledger, stopReason, S),
    ...(durationMs !== null ? [S.ledgerDuration((durationMs / 1000).toFixed(1))] : []),
    // Which prompt bundle answered: an experiment's answer can be told from the baseline's.
    ...(bundle ? [S.ledgerBundle(bundle.id, bundle.version, bundle.hash.slice(0, 8))] : []),
    // A local model: the window it is served with, and the context budget taken from it.
    ...(ledger.context_window ? [windowWords(S, ledger.context_window, lang)] : []),
  ];
  return (
    <div class="ledger" aria-label={S.ledger}>
      <ul>
        {items.map((t) => (
          <li key={t}>{t}</li>
        ))}
      </ul>
      {ledger.estimated && <p class="estimated">{S.ledgerEstimated}</p>}
      {runId && (
        <button type="button" class="link-button" onClick={() => ctl.openTrace(runId)}>
          <span class="codicon codicon-list-tree" aria-hidden="true"></span> {S.openTrace}
        </button>
      )}
    </div>
  );
}
