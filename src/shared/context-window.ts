import { z } from 'zod';

/** The local model servers DocQA recognises behind an OpenAI-compatible base URL. */
export const LOCAL_SERVERS = ['ollama', 'lmstudio'] as const;
export const LocalServer = z.enum(LOCAL_SERVERS);
export type LocalServer = z.infer<typeof LocalServer>;

export const SERVER_NAMES: Record<LocalServer, string> = { ollama: 'Ollama', lmstudio: 'LM Studio' };

/**
 * How the window a local model is served with was obtained: `num_ctx` — DocQA sets it with each request
 * (Ollama's own chat API); `loaded` — the window the server loaded the model with (LM Studio's
 * `loaded_context_length`), which no request can change; `model_max` — only the model's maximum was
 * reported (an LM Studio too old to tell the loaded window).
 */
export const WindowSource = z.enum(['num_ctx', 'loaded', 'model_max']);
export type WindowSource = z.infer<typeof WindowSource>;

/**
 * The context budget a run used when its chat model is served locally, and why: what was configured,
 * the window the server gives the model, and the budget DocQA derived from it. The run's budgets carry
 * `max_context_tokens`; this says where that number came from (manifest, ledger, trace, Test Connection).
 */
export const ContextWindow = z.object({
  server: LocalServer,
  model: z.string(),
  /** The context budget as configured (docqa.budgets.maxContextTokens / DOCQA_MAX_CONTEXT_TOKENS). */
  configured: z.number().int(),
  /** The window the server runs the model with for DocQA's requests, in the model's own tokens. */
  served: z.number().int(),
  source: WindowSource,
  /** The model's trained maximum, when the server said. */
  model_max: z.number().int().nullable(),
  /** The window the server would use without DocQA's num_ctx (Ollama: running now, the Modelfile's, or its default), when known. */
  server_default: z.number().int().nullable(),
  /** The context budget the run used (DocQA's tokens): the configured one, or less when the window is smaller. */
  max_context_tokens: z.number().int(),
  /** Whether the budget is below the configured one because of the window. */
  lowered: z.boolean(),
  /** One English sentence: the numbers above, for a person. */
  reason: z.string(),
});
export type ContextWindow = z.infer<typeof ContextWindow>;
