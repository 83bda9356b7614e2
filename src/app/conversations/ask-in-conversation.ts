import { z } from 'zod';
import { DocQaError, errorMessage } from '../../common/errors';
import { TraceMode } from '../../shared/trace-model';
import { type AskContext, AskEvent, type AskOutcome, ask, checkQuestion, questionLanguage } from '../ask';
import { QuestionScope } from '../../shared/question-scope';
import type { ConversationTurn, TurnStep } from '../../shared/conversation';
import type { ConversationStore } from './conversation-store';
import { earlierTurns, recordStep } from './conversation-turns';

/** A question in a conversation: a new one (`conversation_id` null) or a follow-up in a stored one. */
export const ConversationAskRequest = z.object({
  /** The workspace key (workspaceKey of the host's folders). */
  workspace: z.string(),
  conversation_id: z.string().nullable(),
  question: z.string(),
  lang: z.enum(['zh', 'en']).optional(),
  prompt: z.string().optional(),
  trace: TraceMode.optional(),
  /** Sources and documents the question is limited to (the chat's @). */
  scope: QuestionScope.optional(),
});
export type ConversationAskRequest = z.infer<typeof ConversationAskRequest>;

/** What a chat view hears: first the conversation and turn the question was recorded as, then the run's events. */
export const ConversationAskEvent = z.union([z.object({ type: z.literal('conversation_turn'), conversation_id: z.string(), turn_id: z.string(), created: z.boolean() }), AskEvent]);
export type ConversationAskEvent = z.infer<typeof ConversationAskEvent>;

export interface ConversationAskOutcome {
  conversation_id: string;
  /** The turn as stored at the end (done with the result, with its steps and run id). */
  turn: ConversationTurn;
  run: AskOutcome;
}

/**
 * One question of a conversation, recorded as it happens: the conversation created if needed, the turn
 * appended as `running` before the run (its ids told to the host at once), the run id and snapshot
 * written when the run starts, the steps gathered from the events, and the end written whatever
 * happens — the released result (CANCELLED included), or the error that prevented or broke the run,
 * which is then thrown on. The run gets the earlier turns' questions and answers (earlierTurns).
 * A question refused by its own check (empty, too long) is not recorded.
 */
export async function askInConversation(ctx: AskContext, store: ConversationStore, req: ConversationAskRequest, o: { signal?: AbortSignal; onEvent?: (e: ConversationAskEvent) => void } = {}): Promise<ConversationAskOutcome> {
  checkQuestion(req.question, ctx.settings.run.max_question_chars, ctx.questionLimitName);
  const conversation = req.conversation_id ? await store.get(req.conversation_id) : await store.create();
  const lang = req.lang ?? questionLanguage(req.question);
  const turn = await store.appendTurn(conversation.id, { question: req.question, lang });
  o.onEvent?.({ type: 'conversation_turn', conversation_id: conversation.id, turn_id: turn.turn_id, created: req.conversation_id === null });

  let steps: TurnStep[] = [];
  // Writes made while the run goes on, in order; the end waits for them before its own.
  let writes: Promise<unknown> = Promise.resolve();
  const onEvent = (e: AskEvent) => {
    if (e.type === 'run_started') {
      const started = { run_id: e.run_id, snapshot_id: e.snapshot_id, prompt_bundle: e.prompt_bundle, ...(e.scope ? { scope: e.scope } : {}) };
      // The run id is on disk while the run goes on: an interrupted turn still opens its trace.
      // A failed write here must not break the run: the end's write (which throws) carries the same ids.
      writes = writes.then(() => store.updateTurn(conversation.id, turn.turn_id, started)).catch(() => undefined);
    } else if (e.type === 'tool_requested' || e.type === 'tool_result') steps = recordStep(steps, e);
    o.onEvent?.(e);
  };
  let run: AskOutcome;
  try {
    run = await ask(ctx, { question: req.question, lang, prompt: req.prompt, trace: req.trace, conversation: earlierTurns(conversation), scope: req.scope }, { signal: o.signal, onEvent });
  } catch (err) {
    await writes;
    const error = err instanceof DocQaError ? { code: err.code, message: err.message } : { code: o.signal?.aborted ? 'cancelled' : 'internal', message: errorMessage(err) };
    await store.updateTurn(conversation.id, turn.turn_id, { state: 'error', steps, error });
    throw err;
  }
  await writes;
  const done = await store.updateTurn(conversation.id, turn.turn_id, { state: 'done', steps, result: run.result, run_id: run.run_id, snapshot_id: run.snapshot_id });
  return { conversation_id: conversation.id, turn: done, run };
}
