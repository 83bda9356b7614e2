import { z } from 'zod';
import { type UnwordedOutcome, wordedOutcome, wordedScope } from '../../tools/registry';
import type { ScopeData } from '../../tools/tool';
import { CONVERSATION_FORMAT_VERSION, Conversation } from '../../shared/conversation';

/**
 * Conversation files written before their steps carried words (formatVersion 1) are read as the current
 * format: each stored step (the turn's steps, the result's facts and limitations) gets its tool's words
 * over its stored data, the same words a new run writes. The file itself is rewritten only by the next
 * change to the conversation.
 */
type Step = { scope?: ScopeData | null; outcome?: UnwordedOutcome | null };

function wordStep<T extends Step>(step: T): T {
  if (!step || typeof step !== 'object' || !step.scope || typeof step.scope !== 'object') return step;
  const scope = wordedScope(step.scope);
  const outcome = step.outcome && typeof step.outcome === 'object' ? wordedOutcome(step.scope, step.outcome) : step.outcome;
  return { ...step, scope, outcome };
}

const steps = (v: unknown): unknown => (Array.isArray(v) ? v.map((s) => wordStep(s as Step)) : v);

/** A version 1 conversation as version 2; any other value as it is (the schema then judges it). */
export function upgradeConversation(data: unknown): unknown {
  const c = data as { formatVersion?: unknown; turns?: unknown } | null;
  if (!c || typeof c !== 'object' || c.formatVersion !== 1 || !Array.isArray(c.turns)) return data;
  const turns = c.turns.map((t: { steps?: unknown; result?: { progress?: { facts?: unknown; limitations?: unknown } } | null }) => {
    if (!t || typeof t !== 'object') return t;
    const progress = t.result?.progress;
    const result = progress && typeof progress === 'object' ? { ...t.result, progress: { ...progress, facts: steps(progress.facts), limitations: steps(progress.limitations) } } : t.result;
    return { ...t, steps: steps(t.steps), result };
  });
  return { ...c, formatVersion: CONVERSATION_FORMAT_VERSION, turns };
}

/** A conversation file as read: any version this DocQA knows, as the current one. */
export const StoredConversation = z.preprocess(upgradeConversation, Conversation);
