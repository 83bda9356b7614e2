import type { Conversation, ConversationSummary } from '../../src/shared/conversation';
import type { ScopeTargets } from '../../src/shared/question-scope';
import type { StartingQuestion } from '../../src/shared/starting-question';
import type { KnowledgeBase, Setup, UiLang } from '../../src/shared/chat-protocol';
import { type LiveTurn, fromStored } from './turn-state';

/** The whole view's state, replaced (never mutated) on every change; subscribers re-render. */
export interface ChatState {
  /** false until the host's init: the view shows nothing it would have to take back. */
  ready: boolean;
  lang: UiLang;
  kb: KnowledgeBase | null;
  /** How far the person has come (no chat model yet, no sources): the empty chat's guidance. */
  setup: Setup | null;
  /** What `@` offers, for the snapshot it was read from (null until asked for). */
  targets: ScopeTargets | null;
  /** Questions to start with, for this snapshot and language (null until asked for). */
  starting: { snapshot_id: string | null; lang: UiLang; questions: StartingQuestion[] } | null;
  conversations: ConversationSummary[];
  conversationId: string | null;
  turns: LiveTurn[];
  /** Said by the ARIA live region: status changes ("Working…", "Answer ready: SUCCESS"). */
  announce: string;
  /** A message the person must see (a source that could not be opened, a failed request). */
  notice: string | null;
}

export const INITIAL: ChatState = { ready: false, lang: 'en', kb: null, setup: null, targets: null, starting: null, conversations: [], conversationId: null, turns: [], announce: '', notice: null };

export class ChatStore {
  private value: ChatState = INITIAL;
  private readonly subs = new Set<(s: ChatState) => void>();

  get state(): ChatState {
    return this.value;
  }

  update(f: (s: ChatState) => ChatState): void {
    const next = f(this.value);
    if (next === this.value) return;
    this.value = next;
    for (const s of this.subs) s(next);
  }

  subscribe(f: (s: ChatState) => void): () => void {
    this.subs.add(f);
    return () => this.subs.delete(f);
  }
}

export function updateTurn(s: ChatState, turnId: string, f: (t: LiveTurn) => LiveTurn): ChatState {
  const i = s.turns.findIndex((t) => t.turn.turn_id === turnId);
  if (i < 0) return s;
  const turns = s.turns.slice();
  turns[i] = f(turns[i]!);
  return { ...s, turns };
}

/**
 * A stored conversation shown in the view. A turn this view is still streaming keeps its live state
 * (the stored copy has no streamed text); finished turns come from the store, which is the truth.
 */
export function showConversation(s: ChatState, c: Conversation): ChatState {
  const live = new Map(s.conversationId === c.id ? s.turns.map((t) => [t.turn.turn_id, t]) : []);
  const stored = new Set(c.turns.map((t) => t.turn_id));
  const turns = c.turns.map((t) => {
    const mine = live.get(t.turn_id);
    if (mine && (mine.turn.state === 'running' || t.state === 'running')) return mine;
    return mine ? { ...fromStored(t), durationMs: mine.durationMs } : fromStored(t);
  });
  // A question asked here whose turn the store has not written yet stays at the end.
  const unsaved = s.conversationId === c.id ? s.turns.filter((t) => !stored.has(t.turn.turn_id)) : [];
  return { ...s, conversationId: c.id, turns: [...turns, ...unsaved] };
}
