import { useRef, useState } from 'preact/hooks';
import type { UiLang } from '../../src/shared/chat-protocol';
import { useController, useStrings } from './use-chat';

/**
 * The question box: Enter sends, Shift+Enter is a new line (and Enter while an input method is
 * composing is the IME's), Up in an empty box recalls the last question; the answer language follows
 * the question unless overridden; Stop replaces Send while a run is going.
 */
export function Composer({ running, stopping, lastQuestion }: { running: boolean; stopping: boolean; lastQuestion: string | null }) {
  const ctl = useController();
  const S = useStrings();
  const [text, setText] = useState('');
  const [lang, setLang] = useState<'auto' | UiLang>('auto');
  const box = useRef<HTMLTextAreaElement>(null);
  const send = () => {
    if (running || !text.trim()) return;
    void ctl.ask(text, lang === 'auto' ? null : lang);
    setText('');
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label class="sr-only" for="question">
        {S.inputLabel}
      </label>
      <textarea
        id="question"
        ref={box}
        rows={3}
        value={text}
        placeholder={S.inputPlaceholder}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          } else if (e.key === 'ArrowUp' && text === '' && lastQuestion) {
            e.preventDefault();
            setText(lastQuestion);
          }
        }}
      />
      <div class="composer-bar">
        <label>
          <span class="sr-only">{S.langLabel}</span>
          <select aria-label={S.langLabel} value={lang} onChange={(e) => setLang((e.target as HTMLSelectElement).value as 'auto' | UiLang)}>
            <option value="auto">{S.langAuto}</option>
            <option value="zh">{S.langZh}</option>
            <option value="en">{S.langEn}</option>
          </select>
        </label>
        {running ? (
          <button type="button" class="stop" disabled={stopping} onClick={() => void ctl.stop()}>
            <span class="codicon codicon-debug-stop" aria-hidden="true"></span> {stopping ? S.stopping : S.stop}
          </button>
        ) : (
          <button type="submit" disabled={!text.trim()}>
            <span class="codicon codicon-send" aria-hidden="true"></span> {S.send}
          </button>
        )}
      </div>
    </form>
  );
}
