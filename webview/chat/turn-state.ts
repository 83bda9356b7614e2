import type { AskEvent } from '../../src/shared/ask-event';
import type { ConversationTurn } from '../../src/shared/conversation';
import type { Citation, Ledger, RemovedCitation } from '../../src/shared/run-result';
import { recordStep } from '../../src/shared/turn-steps';

/**
 * One question as the view shows it: the stored turn (steps, result, run id) plus what only a live run
 * has — the answer text as it streams, and whether its refs have been verified yet. Pure functions over
 * values, so a new object per change tells Preact exactly which turn to re-render.
 */
export interface LiveTurn {
  turn: ConversationTurn;
  /** The streamed answer (raw refs) until the release replaces it with the checked one. */
  answer: string;
  /** The agent turn whose answer is streaming: a new one restarts the text. */
  answerTurn: number | null;
  /** null until the harness has checked the refs: streamed text is never a verified citation. */
  verified: Citation[] | null;
  removed: RemovedCitation[];
  ledger: Ledger | null;
  stopping: boolean;
  /** Wall time of the run as this view saw it (ms), when it saw it end. */
  durationMs: number | null;
  startedAt: number | null;
  /** A local server loading the chat model before the run starts (said while it waits). */
  loading: Extract<AskEvent, { type: 'model_loading' }> | null;
}

export function fromStored(turn: ConversationTurn): LiveTurn {
  const r = turn.result;
  return { turn, answer: r?.answer ?? '', answerTurn: null, verified: r ? r.citations : null, removed: r?.removed_citations ?? [], ledger: r?.ledger ?? null, stopping: false, durationMs: null, startedAt: null, loading: null };
}

export function newTurn(turn_id: string, question: string, lang: 'zh' | 'en', now: number): LiveTurn {
  const turn: ConversationTurn = { turn_id, question, lang, asked_at: new Date(now).toISOString(), state: 'running', run_id: null, snapshot_id: null, prompt_bundle: null, steps: [], result: null, error: null };
  return { ...fromStored(turn), startedAt: now };
}

export function applyEvent(t: LiveTurn, e: AskEvent, now: number): LiveTurn {
  const turn = t.turn;
  switch (e.type) {
    case 'model_loading':
      return { ...t, loading: e };
    case 'run_started':
      return { ...t, loading: null, turn: { ...turn, run_id: e.run_id, snapshot_id: e.snapshot_id, lang: e.lang, prompt_bundle: e.prompt_bundle, ...(e.scope ? { scope: e.scope } : {}) } };
    case 'tool_requested':
    case 'tool_result':
      // The same reducer the conversation store folds the run's events with.
      return { ...t, turn: { ...turn, steps: recordStep(turn.steps, e) } };
    case 'answer_delta':
      if (t.answerTurn !== e.turn) return { ...t, answer: e.text, answerTurn: e.turn, verified: null, removed: [] };
      return { ...t, answer: t.answer + e.text };
    case 'ledger':
      return { ...t, ledger: e.ledger };
    case 'citations':
      return { ...t, verified: e.verified, removed: e.removed };
    case 'release': {
      const r = e.result;
      return { ...t, turn: { ...turn, state: 'done', result: r }, answer: r.answer ?? '', verified: r.citations, removed: r.removed_citations, ledger: r.ledger, stopping: false, durationMs: t.startedAt === null ? null : now - t.startedAt };
    }
    default:
      // turn_started, model_delta (the model's reasoning, not shown), request_rejected: nothing to show.
      return t;
  }
}

export function failTurn(t: LiveTurn, code: string, message: string): LiveTurn {
  return { ...t, turn: { ...t.turn, state: 'error', error: { code, message } }, stopping: false };
}
