import type { TurnStep } from '../../src/shared/conversation';
import type { UiLang } from '../../src/shared/chat-protocol';
import { showControls } from '../../src/shared/inert-text';
import { useStrings } from './use-chat';

/** The run's tool calls in plain words, each expandable to the blocks it returned. */
export function StepsView({ steps, lang, running, stop }: { steps: readonly TurnStep[]; lang: UiLang; running: boolean; stop: string | null }) {
  const S = useStrings();
  if (steps.length === 0) return running ? <p class="working"><span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span> {S.thinking}</p> : null;
  return (
    <details class="steps" open={running}>
      <summary>{S.steps(steps.length)}</summary>
      <ol>
        {steps.map((st) => (
          <li key={st.tool_call_id} class={`step ${st.outcome ? st.outcome.kind : 'running'}`}>
            {st.blocks.length > 0 ? (
              <details>
                <summary>{stepLine(st, lang, S.stepRunning)}</summary>
                <ul class="step-blocks" aria-label={S.stepBlocks}>
                  {st.blocks.map((b) => (
                    <li key={b.ref}>
                      <span class="block-title">{showControls(b.doc_title)}</span> <span class="block-section">§ {showControls(b.section_path)}</span>
                      <div class="block-line">{showControls(b.first_line)}</div>
                    </li>
                  ))}
                </ul>
              </details>
            ) : (
              <span class="step-line">{stepLine(st, lang, S.stepRunning)}</span>
            )}
          </li>
        ))}
        {stop && <li class="step stop">{S.stoppedSearching(stop)}</li>}
      </ol>
    </details>
  );
}

function stepLine(st: TurnStep, lang: UiLang, runningWord: string): string {
  const what = showControls(st.scope.words[lang]);
  const sep = lang === 'zh' ? '：' : ': ';
  return `${what}${sep}${st.outcome ? showControls(st.outcome.words[lang]) : runningWord}`;
}
