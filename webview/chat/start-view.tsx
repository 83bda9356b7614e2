import { useEffect } from 'preact/hooks';
import type { StartingQuestion } from '../../src/shared/starting-question';
import type { ChatCommand, KnowledgeBase, Setup } from '../../src/shared/chat-protocol';
import { showControls } from '../../src/shared/inert-text';
import type { Strings } from './strings';
import { useController, useStrings } from './use-chat';

/**
 * The empty chat: what to do next when DocQA cannot answer yet (a chat model, a folder, an index), each
 * with the button that does it; over a ready knowledge base, questions drawn from it, each asked about
 * its own document.
 */
export function StartView({ setup, kb, questions }: { setup: Setup | null; kb: KnowledgeBase | null; questions: StartingQuestion[] | null }) {
  const ctl = useController();
  const S = useStrings();
  const ready = kb !== null && (kb.state === 'ready' || kb.state === 'partial' || kb.state === 'keyword_only');
  useEffect(() => {
    if (ready) void ctl.startingQuestions();
  }, [ready, kb?.snapshot_id, S]);
  const step = nextStep(setup, kb, S);
  if (step) {
    return (
      <div class="start">
        <p>{step.text}</p>
        <p class="start-actions">
          <Command command={step.command} label={step.label} primary />
          <Command command="docqa.openWalkthrough" label={S.getStarted} />
        </p>
      </div>
    );
  }
  return (
    <div class="start">
      <p class="empty">{S.empty}</p>
      {ready && questions && questions.length > 0 && (
        <>
          <p class="start-head">{S.startingHead}</p>
          <ul class="starting">
            {questions.map((q) => (
              <li key={q.doc_id}>
                <button type="button" class="starting-question" title={S.startingScope(q.doc_title)} onClick={() => void ctl.ask(q.question, null, { sources: [], doc_ids: [q.doc_id] })}>
                  <span class="codicon codicon-comment-discussion" aria-hidden="true"></span> {showControls(q.question)}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function nextStep(setup: Setup | null, kb: KnowledgeBase | null, S: Strings): { text: string; command: ChatCommand; label: string } | null {
  if (setup && !setup.chat_ready) return { text: S.needChatModel, command: 'docqa.setChatKey', label: S.setChatKey };
  if (setup && setup.sources === 0) return { text: S.needSource, command: 'docqa.addFolder', label: S.addFolder };
  if (kb?.state === 'none') return { text: S.needIndex, command: 'docqa.rebuildIndex', label: S.buildIndex };
  return null;
}

function Command({ command, label, primary = false }: { command: ChatCommand; label: string; primary?: boolean }) {
  const ctl = useController();
  return (
    <button type="button" class={primary ? '' : 'secondary'} onClick={() => void ctl.runCommand(command)}>
      {label}
    </button>
  );
}
