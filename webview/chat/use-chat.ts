import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { ChatController } from './chat-controller';
import type { UiLang } from '../../src/shared/chat-protocol';
import type { ChatState } from './chat-store';
import { type Strings, stringsFor } from './strings';

export const ControllerContext = createContext<ChatController | null>(null);
/**
 * The UI language, given by the app: components read it from here rather than from the store, so a
 * streamed delta re-renders only what it changed (a store subscription would re-render every one).
 */
export const LangContext = createContext<UiLang>('en');

export function useController(): ChatController {
  const c = useContext(ControllerContext);
  if (!c) throw new Error('no chat controller');
  return c;
}

export function useChatState(): ChatState {
  const ctl = useController();
  const [s, set] = useState(ctl.store.state);
  useEffect(() => ctl.store.subscribe(set), [ctl]);
  return s;
}

export function useLang(): UiLang {
  return useContext(LangContext);
}

export function useStrings(): Strings {
  return stringsFor(useContext(LangContext));
}

/**
 * Keeps a scrolling element pinned to its bottom while its content grows, until the person scrolls up;
 * scrolling back to the bottom, or `resetKey` changing (a new question), pins it again (continue's
 * useAutoScroll). A ResizeObserver sees every growth, streamed text included.
 */
export function useAutoScroll(resetKey: unknown, mounted: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    pinned.current = true;
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [resetKey]);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let last = el.scrollTop;
    const onScroll = () => {
      const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      // Only a move upwards unpins: content growing under a pinned view also fires scroll events.
      if (el.scrollTop < last && !atBottom) pinned.current = false;
      else if (atBottom) pinned.current = true;
      last = el.scrollTop;
    };
    const ro = new ResizeObserver(() => {
      if (pinned.current) el.scrollTop = el.scrollHeight;
      last = el.scrollTop;
    });
    for (const child of Array.from(el.children)) ro.observe(child);
    ro.observe(el);
    const mo = new MutationObserver(() => {
      for (const child of Array.from(el.children)) ro.observe(child);
    });
    mo.observe(el, { childList: true });
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
      mo.disconnect();
    };
  }, [mounted]);
  return ref;
}
