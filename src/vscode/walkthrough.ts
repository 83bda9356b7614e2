import { isLoopback } from '../common/provider-failure';
import type { AppSettings } from '../app/settings';

/** The walkthrough contributed in package.json (`publisher.name#id`), for "DocQA: Get Started". */
export const WALKTHROUGH_ID = 'docqa.docqa#docqa.gettingStarted';

/** globalState flags for what the data directory does not record: keyword-only chosen, a question answered. */
export const KEYWORD_ONLY_CHOSEN = 'docqa.walkthrough.keywordOnly';
export const ANSWERED = 'docqa.walkthrough.answered';

/** Each step of the walkthrough and the context key it completes on (its `onContext:` event in package.json). */
export const STEP_CONTEXT_KEYS = {
  chatModel: 'docqa.chatModelChosen',
  embeddings: 'docqa.embeddingsChosen',
  addFolder: 'docqa.hasSources',
  build: 'docqa.hasSnapshot',
  ask: 'docqa.hasAsked',
} as const;

export interface SetupFacts {
  settings: AppSettings;
  chatKey: boolean;
  embeddingKey: boolean;
  keywordOnlyChosen: boolean;
  sources: number;
  snapshot: boolean;
  answered: boolean;
}

/**
 * The context keys the walkthrough's steps complete on (`onContext:`), from what really happened. Pure.
 * A chat model is chosen when DocQA can call one: a key is set, or the endpoint is on this machine (a
 * local server needs none). When VS Code's language models become a chat provider (issue 34), that
 * choice is one more case here and one more link in the step's description.
 */
export function walkthroughContext(f: SetupFacts): Record<string, boolean> {
  const e = f.settings.embedding;
  const embeddingsOn = e.provider !== 'none' && (f.embeddingKey || isLoopback(e.base_url));
  return {
    'docqa.hasChatKey': f.chatKey,
    'docqa.chatModelChosen': f.chatKey || isLoopback(f.settings.chat.base_url),
    'docqa.embeddingsChosen': embeddingsOn || f.keywordOnlyChosen,
    'docqa.hasSources': f.sources > 0,
    'docqa.hasSnapshot': f.snapshot,
    'docqa.hasAsked': f.answered,
  };
}

/**
 * The ids of the steps whose context key holds, as VS Code names a step (`walkthrough#step`): what
 * `welcome.markStepComplete` takes. Pure.
 */
export function stepsDone(context: Record<string, boolean>): string[] {
  return Object.entries(STEP_CONTEXT_KEYS).flatMap(([step, key]) => (context[key] ? [`${WALKTHROUGH_ID}#${step}`] : []));
}
