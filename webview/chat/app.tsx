import { useState } from 'preact/hooks';
import type { KnowledgeBase } from '../../src/shared/chat-protocol';
import { HistoryView } from './history-view';
import { Composer } from './composer';
import { StartView } from './start-view';
import { showControls } from '../../src/shared/inert-text';
import type { Strings } from './strings';
import { stringsFor } from './strings';
import { TurnView } from './turn-view';
import { LangContext, useAutoScroll, useChatState, useController } from './use-chat';

/** The chat view: toolbar, knowledge-base notice, history, the conversation (an ARIA log), the question box. */
export function App() {
  const s = useChatState();
  const ctl = useController();
  const S = stringsFor(s.lang);
  const [history, setHistory] = useState(false);
  const running = s.turns.find((t) => t.turn.state === 'running') ?? null;
  const log = useAutoScroll(s.turns.length, s.ready);
  if (!s.ready) return <p class="loading">…</p>;
  return (
    <LangContext.Provider value={s.lang}>
      <div class="app" aria-label={S.appLabel}>
        <header class="toolbar">
          <button type="button" class="icon-text" onClick={() => void ctl.newChat()}>
            <span class="codicon codicon-add" aria-hidden="true"></span> {S.newChat}
          </button>
          <button type="button" class="icon-text" aria-expanded={history} aria-controls="history" onClick={() => setHistory(!history)}>
            <span class="codicon codicon-history" aria-hidden="true"></span> {S.history}
          </button>
          {s.conversationId && s.turns.some((t) => t.turn.result) && (
            <button type="button" class="icon-text" title={S.exportTitle} onClick={() => void ctl.saveNote(null)}>
              <span class="codicon codicon-export" aria-hidden="true"></span> {S.exportConversation}
            </button>
          )}
        </header>
        <KbNotice kb={s.kb} S={S} />
        {history && (
          <nav id="history" class="history-panel" aria-label={S.history}>
            <HistoryView conversations={s.conversations} current={s.conversationId} onOpened={() => setHistory(false)} />
          </nav>
        )}
        <div class="log" ref={log} role="log" aria-live="polite" aria-relevant="additions" aria-label={S.messages} tabIndex={0}>
          {s.turns.length === 0 && <StartView setup={s.setup} kb={s.kb} questions={s.starting?.questions ?? null} />}
          {s.turns.map((t) => (
            <TurnView key={t.turn.turn_id} live={t} kb={s.kb} />
          ))}
        </div>
        {s.notice && (
          <p class="notice" role="alert">
            <span class="codicon codicon-warning" aria-hidden="true"></span> {showControls(s.notice)}
          </p>
        )}
        <Composer running={!!running} stopping={!!running?.stopping} lastQuestion={s.turns.at(-1)?.turn.question ?? null} targets={s.targets} />
        <div class="sr-only" role="status" aria-live="polite">
          {s.announce}
        </div>
      </div>
    </LangContext.Provider>
  );
}

function KbNotice({ kb, S }: { kb: KnowledgeBase | null; S: Strings }) {
  if (!kb) return null;
  const text = kb.state === 'none' ? S.kbNone : kb.state === 'building' ? S.kbBuilding : kb.state === 'keyword_only' ? S.kbKeywordOnly : null;
  return text ? <p class={`kb-notice kb-${kb.state}`}>{text}</p> : null;
}
