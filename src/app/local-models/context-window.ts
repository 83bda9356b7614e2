import { type ContextWindow, type LocalServer, SERVER_NAMES } from '../../common/served-window';

/**
 * DocQA counts tokens with o200k; a local model counts with its own tokenizer. Measured on the baseline
 * prompts, an Observation of notes and 200 KB of the corpus's English and Chinese notes, the model's
 * count over ours was 0.92–1.03 for Qwen 3, 0.99–1.03 for Llama 3, 0.97–1.10 for Gemma 3 and 1.18–1.45
 * for Mistral's older 32k vocabulary (docs/local-models.md). The window must hold the prompt in the
 * model's tokens, so DocQA's budget is the window divided by this: 20% room, enough for every modern
 * vocabulary measured (old 32k-vocabulary models on Chinese text need more: a lower budget).
 */
export const TOKENIZER_HEADROOM = 1.2;

/** What a local server said about one model, as far as the window goes. */
export interface WindowFacts {
  server: LocalServer;
  model: string;
  /** The model's trained maximum (Ollama `model_info.<arch>.context_length`, LM Studio `max_context_length`). */
  modelMax: number | null;
  /** Ollama: the window it would use without DocQA's num_ctx (running now, else the Modelfile's num_ctx); null when only its default applies. */
  serverDefault: number | null;
  /** LM Studio: the window the model is loaded with (`loaded_context_length`); null when not loaded or not reported. */
  loaded: number | null;
}

const n = (x: number) => x.toLocaleString('en-US');

/** The window DocQA asks Ollama for with each request: room for the configured budget in the model's tokens, at most its trained maximum. */
export function ollamaNumCtx(configured: number, modelMax: number | null): number {
  const wanted = Math.ceil(configured * TOKENIZER_HEADROOM);
  return modelMax !== null && modelMax > 0 ? Math.min(wanted, modelMax) : wanted;
}

/**
 * The context budget of a run on a local model, and the sentence that says why. Ollama's own chat API
 * takes the window with each request (num_ctx), so DocQA sets it to hold the configured budget and the
 * budget is lowered only when the model's maximum is smaller. LM Studio's window is fixed when the model
 * is loaded, so the budget is clamped to it. Null when the server told no window at all.
 */
export function decideWindow(configured: number, f: WindowFacts): ContextWindow | null {
  const name = SERVER_NAMES[f.server];
  if (f.server === 'ollama') {
    const served = ollamaNumCtx(configured, f.modelMax);
    const budget = Math.min(configured, Math.floor(served / TOKENIZER_HEADROOM));
    const lowered = budget < configured;
    const without = f.serverDefault !== null ? `without it Ollama would run the model with ${n(f.serverDefault)} and cut longer prompts silently` : 'without it Ollama would run the model with its default window (4,096 on most machines) and cut longer prompts silently';
    const reason = lowered
      ? `Context budget ${n(budget)} (${n(configured)} configured): ${name} serves ${f.model} with num_ctx ${n(served)}, set by DocQA with each request, which is the model's maximum; ${without}. The budget leaves 20% of the window for the model's own tokenizer.`
      : `Context budget ${n(budget)} as configured: ${name} serves ${f.model} with num_ctx ${n(served)}, set by DocQA with each request to hold it with 20% room for the model's own tokenizer; ${without}.`;
    return { server: f.server, model: f.model, configured, served, source: 'num_ctx', model_max: f.modelMax, server_default: f.serverDefault, max_context_tokens: budget, lowered, reason };
  }
  const served = f.loaded ?? f.modelMax;
  if (served === null || served <= 0) return null;
  const source = f.loaded !== null ? 'loaded' : 'model_max';
  const budget = Math.min(configured, Math.floor(served / TOKENIZER_HEADROOM));
  const lowered = budget < configured;
  const how = source === 'loaded' ? `${name} has ${f.model} loaded with a ${n(served)}-token window, which a request cannot change` : `${name} did not report the window ${f.model} is loaded with; its maximum is ${n(served)} tokens`;
  const reason = lowered
    ? `Context budget ${n(budget)} (${n(configured)} configured): ${how}; the budget leaves 20% of it for the model's own tokenizer. Load the model with a longer context length in ${name} to raise it.`
    : `Context budget ${n(budget)} as configured: ${how}, enough for it with 20% room for the model's own tokenizer.`;
  return { server: f.server, model: f.model, configured, served, source, model_max: f.modelMax, server_default: null, max_context_tokens: budget, lowered, reason };
}
