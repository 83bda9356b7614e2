import { z } from 'zod';
import { DocQaError } from '../common/errors';
import { countTokens } from '../common/tokenizer';
import { stripCitations } from './citations';
import { type BundleTemplate, renderConversation } from './prompt-bundle';

/** An earlier turn of the conversation, as a follow-up gets it: the question and the released answer, nothing of its evidence. */
export const EarlierTurn = z.object({ question: z.string(), answer: z.string() });
export type EarlierTurn = z.infer<typeof EarlierTurn>;

/** The conversation section of a run's prompts, and what went into it. */
export interface ConversationContext {
  /** The rendered section ('' when no turn went in: the prompt is then the one without a conversation). */
  text: string;
  /** Earlier turns in the section (the most recent ones). */
  turns: number;
  /** Earlier turns left out because the section's bound was reached (the oldest ones). */
  dropped: number;
  /** Tokens of the section as it stands in every prompt of the run. */
  tokens: number;
}

export const NO_CONVERSATION: ConversationContext = { text: '', turns: 0, dropped: 0, tokens: 0 };

/** One earlier turn as a line of the section: JSON, so an answer's own brackets and newlines cannot blur the turns. */
export function turnLine(t: EarlierTurn): string {
  return JSON.stringify({ question: t.question, answer: stripCitations(t.answer) });
}

/**
 * The most recent earlier turns whose lines fit `maxTokens` together (oldest first in the section);
 * a turn that does not fit stops the walk back, so the kept turns are always the latest run of them.
 * The section's fixed wording (the bundle's template) is counted in `tokens`, not against the bound.
 */
export function conversationContext(template: BundleTemplate | null, turns: readonly EarlierTurn[], maxTokens: number): ConversationContext {
  if (turns.length === 0) return NO_CONVERSATION;
  if (!template) throw new DocQaError('prompt_bundle_invalid', 'the prompt bundle has no conversation template; load it through the prompt store');
  const kept: string[] = [];
  let used = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const line = turnLine(turns[i]!);
    const cost = countTokens(line) + 1;
    if (used + cost > maxTokens) break;
    kept.unshift(line);
    used += cost;
  }
  if (kept.length === 0) return { ...NO_CONVERSATION, dropped: turns.length };
  const text = renderConversation(template, kept);
  return { text, turns: kept.length, dropped: turns.length - kept.length, tokens: countTokens(text) };
}
