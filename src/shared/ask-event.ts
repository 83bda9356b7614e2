import { z } from 'zod';
import { LocalServer } from './context-window';
import { AgentEvent } from './run-result';
import { ScopeSummary } from './question-scope';

/**
 * Everything a UI hears during one question: the run's start, then the agent's events. In a file of its
 * own (zod and src/shared only) so the chat webview can bundle it without the node side of `ask`.
 */
export const AskEvent = z.union([
  z.object({
    type: z.literal('run_started'),
    run_id: z.string(),
    snapshot_id: z.string(),
    lang: z.enum(['zh', 'en']),
    prompt_bundle: z.object({ id: z.string(), version: z.string(), hash: z.string() }),
    /** A follow-up's earlier turns in the prompts: how many, how many dropped for the bound, their tokens. */
    conversation: z.object({ turns: z.number().int(), dropped: z.number().int(), tokens: z.number().int() }).optional(),
    /** A scoped question: the documents its tools searched (absent: the whole snapshot). */
    scope: ScopeSummary.optional(),
  }),
  /**
   * Before the run: the local server is loading the chat model (its first request waits for it, up to
   * `timeout_ms`); `window` is the context window it is loaded with, when known beforehand.
   */
  z.object({ type: z.literal('model_loading'), server: LocalServer, model: z.string(), window: z.number().int().nullable(), timeout_ms: z.number().int() }),
  AgentEvent,
]);
export type AskEvent = z.infer<typeof AskEvent>;
