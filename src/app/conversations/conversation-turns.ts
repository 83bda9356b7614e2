import type { EarlierTurn } from '../../harness/conversation-context';
import type { Conversation, ConversationTurn } from '../../shared/conversation';

const TITLE_CHARS = 80;

/** A conversation's default title: its first question on one line, cut at 80 characters. */
export function defaultTitle(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  const chars = [...line];
  return chars.length > TITLE_CHARS ? `${chars.slice(0, TITLE_CHARS - 1).join('')}…` : line;
}

/**
 * What a follow-up gets of the turns before it: each question whose run released an answer (SUCCESS, or
 * a FALLBACK — a clarifying question or the checks made — which the next question often answers), with
 * that answer. A turn without an answer (FAILED, CANCELLED, an error, interrupted, still running) gives
 * nothing, its question neither: the model would take an unanswered question for settled context.
 */
export function earlierTurns(c: Conversation): EarlierTurn[] {
  return c.turns.filter((t) => t.state === 'done' && t.result?.answer != null).map((t) => ({ question: t.question, answer: t.result!.answer! }));
}

// The one reducer of a turn's steps, shared with the chat view.
export { recordStep } from '../../shared/turn-steps';

/**
 * Turns left `running` by a process of this host that is gone (a crash, a closed window, a kill) are
 * interrupted: nothing will ever finish them. A turn of another host, or without an owner, is left as is.
 */
export function interruptDead(c: Conversation, host: string, alive: (pid: number) => boolean): { conversation: Conversation; changed: boolean } {
  let changed = false;
  const turns = c.turns.map((t): ConversationTurn => {
    if (t.state !== 'running' || !t.owner || t.owner.host !== host || alive(t.owner.pid)) return t;
    changed = true;
    const { owner: _gone, ...rest } = t;
    return { ...rest, state: 'interrupted' };
  });
  return { conversation: changed ? { ...c, turns } : c, changed };
}
