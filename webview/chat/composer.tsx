import { useMemo, useRef, useState } from 'preact/hooks';
import type { ScopeTargets } from '../../src/shared/question-scope';
import type { UiLang } from '../../src/shared/chat-protocol';
import { showControls } from '../../src/shared/inert-text';
import { type ScopeItem, itemsOf, mentionAt, rankItems, scopeOfItems, withoutMention } from './mention';
import { useController, useStrings } from './use-chat';

/**
 * The question box: Enter sends, Shift+Enter is a new line (and Enter while an input method is
 * composing is the IME's), Up in an empty box recalls the last question; the answer language follows
 * the question unless overridden; Stop replaces Send while a run is going. `@` offers the knowledge
 * base's sources and documents (↑/↓ to move, Enter or Tab to pick, Escape to close); the picked ones
 * are chips that limit the questions asked until they are removed.
 */
export function Composer({ running, stopping, lastQuestion, targets }: { running: boolean; stopping: boolean; lastQuestion: string | null; targets: ScopeTargets | null }) {
  const ctl = useController();
  const S = useStrings();
  const [text, setText] = useState('');
  const [lang, setLang] = useState<'auto' | UiLang>('auto');
  const [chosen, setChosen] = useState<ScopeItem[]>([]);
  const [mention, setMention] = useState<{ start: number; query: string } | null>(null);
  const [active, setActive] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  const items = useMemo(() => (targets ? itemsOf(targets, S.docCount) : []), [targets, S]);
  const offered = useMemo(() => (mention ? rankItems(items, mention.query, new Set(chosen.map((c) => c.key))) : []), [items, mention, chosen]);
  const open = mention !== null;

  const follow = (el: HTMLTextAreaElement) => {
    const m = mentionAt(el.value, el.selectionStart ?? el.value.length);
    if (m && !mention) void ctl.targets();
    setMention(m);
    if (!m || m.query !== mention?.query) setActive(0);
  };
  const pick = (item: ScopeItem | undefined) => {
    const el = box.current;
    if (!item || !el || !mention) return;
    const next = withoutMention(el.value, el.selectionStart ?? el.value.length, mention);
    setText(next.text);
    el.value = next.text;
    el.setSelectionRange(next.caret, next.caret);
    setChosen([...chosen, item]);
    setMention(null);
  };
  const send = () => {
    if (running || !text.trim()) return;
    void ctl.ask(text, lang === 'auto' ? null : lang, scopeOfItems(chosen));
    setText('');
    setMention(null);
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {chosen.length > 0 && (
        <div class="scope-chips" aria-label={S.scopeLabel}>
          <span class="scope-lead">{S.scopeLead}</span>
          {chosen.map((c) => (
            <span key={c.key} class="scope-chip">
              <span class={`codicon ${c.kind === 'source' ? 'codicon-folder' : 'codicon-file'}`} aria-hidden="true"></span> {showControls(c.label)}
              <button type="button" class="icon" aria-label={S.removeScope(c.label)} onClick={() => setChosen(chosen.filter((x) => x.key !== c.key))}>
                <span class="codicon codicon-close" aria-hidden="true"></span>
              </button>
            </span>
          ))}
        </div>
      )}
      {open && (
        <ul id="mention-list" class="mention-list" role="listbox" aria-label={S.mentionLabel}>
          {offered.length === 0 && <li class="mention-empty">{targets ? S.mentionNone : S.previewLoading}</li>}
          {offered.map((it, i) => (
            <li
              key={it.key}
              id={`mention-${i}`}
              role="option"
              aria-selected={i === active}
              class={`mention ${i === active ? 'active' : ''}`}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(it);
              }}
            >
              <span class={`codicon ${it.kind === 'source' ? 'codicon-folder' : 'codicon-file'}`} aria-hidden="true"></span> <span class="mention-label">{showControls(it.label)}</span> <span class="mention-detail">{showControls(it.detail)}</span>
            </li>
          ))}
        </ul>
      )}
      <label class="sr-only" for="question">
        {S.inputLabel}
      </label>
      <textarea
        id="question"
        ref={box}
        rows={3}
        value={text}
        placeholder={S.inputPlaceholder}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={open ? 'mention-list' : undefined}
        aria-activedescendant={open && offered.length ? `mention-${active}` : undefined}
        onInput={(e) => {
          const el = e.target as HTMLTextAreaElement;
          setText(el.value);
          follow(el);
        }}
        onClick={(e) => follow(e.target as HTMLTextAreaElement)}
        onBlur={() => setMention(null)}
        onKeyDown={(e) => {
          if (open) {
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              if (offered.length) setActive((active + (e.key === 'ArrowDown' ? 1 : offered.length - 1)) % offered.length);
              return;
            }
            if ((e.key === 'Enter' || e.key === 'Tab') && !e.isComposing && offered.length) {
              e.preventDefault();
              pick(offered[active]);
              return;
            }
            if (e.key === 'Escape') {
              e.preventDefault();
              setMention(null);
              return;
            }
          }
          if (e.key === 'Backspace' && text === '' && chosen.length) setChosen(chosen.slice(0, -1));
          else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
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
