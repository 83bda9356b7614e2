import { memo } from 'preact/compat';
import { useMemo, useState } from 'preact/hooks';
import type { KnowledgeBase } from '../../src/shared/chat-protocol';
import { AnswerView } from './answer-view';
import { showControls } from '../../src/shared/inert-text';
import { LedgerView, ReleaseView, RemovedView } from './outcome-view';
import { StepsView } from './steps-view';
import type { LiveTurn } from './turn-state';
import { RELEASE_STATES } from '../../src/shared/release-states';
import { stopWords } from '../../src/shared/run-result';
import { useController, useLang, useStrings } from './use-chat';

/** One question and everything its run showed; memoised, so a delta to the last turn leaves the others alone. */
export const TurnView = memo(function TurnView({ live, kb }: { live: LiveTurn; kb: KnowledgeBase | null }) {
  const S = useStrings();
  const lang = useLang();
  const { turn } = live;
  const running = turn.state === 'running';
  const result = turn.result;
  const cites = useMemo(() => ({ verified: live.verified, removed: live.removed }), [live.verified, live.removed]);
  return (
    <article class={`turn ${turn.state}`} aria-busy={running}>
      <div class="question">
        <span class="who">{S.you}</span>
        <p>{showControls(turn.question)}</p>
      </div>
      <div class="reply">
        <StepsView steps={turn.steps} lang={lang} running={running} stop={result && RELEASE_STATES[result.release.status].stopShown ? stopWords(result.stop_reason, lang) : null} />
        {live.answer && <AnswerView text={live.answer} cites={cites} snapshotId={turn.snapshot_id} previewId={`preview-${turn.turn_id}`} />}
        {result && <ReleaseView result={result} kb={kb} snapshotId={turn.snapshot_id} />}
        {result && <RemovedView removed={result.removed_citations} />}
        {turn.state === 'error' && turn.error && (
          <p class="turn-error" role="alert">
            <span class="codicon codicon-error" aria-hidden="true"></span> {S.turnError}: {showControls(turn.error.message)}
          </p>
        )}
        {turn.state === 'interrupted' && <p class="turn-error">{S.interrupted}</p>}
        {live.loading && running && (
          <p class="working" role="status">
            <span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span> {S.modelLoading(live.loading.server === 'ollama' ? 'Ollama' : 'LM Studio', live.loading.model, Math.round(live.loading.timeout_ms / 1000))}
          </p>
        )}
        {live.stopping && running && <p class="working">{S.stopping}</p>}
        {(result?.ledger ?? live.ledger) && <LedgerView ledger={(result?.ledger ?? live.ledger)!} stopReason={result?.stop_reason ?? null} durationMs={live.durationMs} runId={turn.run_id} bundle={turn.prompt_bundle} scope={turn.scope ?? null} lang={lang} />}
        {result && turn.state === 'done' && !turn.turn_id.startsWith('local-') && <KeepActions turnId={turn.turn_id} />}
      </div>
    </article>
  );
});

/** Copy the answer as Markdown with its citations as links, or save it as a note. */
function KeepActions({ turnId }: { turnId: string }) {
  const ctl = useController();
  const S = useStrings();
  const [copied, setCopied] = useState(false);
  return (
    <p class="keep">
      <button type="button" class="link-button" onClick={async () => setCopied(await ctl.copyMarkdown(turnId))}>
        <span class={`codicon ${copied ? 'codicon-check' : 'codicon-copy'}`} aria-hidden="true"></span> {copied ? S.copiedShort : S.copyMarkdown}
      </button>
      <button type="button" class="link-button" onClick={() => void ctl.saveNote(turnId)}>
        <span class="codicon codicon-save" aria-hidden="true"></span> {S.saveNote}
      </button>
    </p>
  );
}
