/**
 * What a local model does with a prompt longer than the window it is served with, for the fake Ollama
 * and LM Studio servers: the prompt counted in "model tokens" (our o200k count times a ratio: a model's
 * own tokenizer counts differently), and cut as Ollama's runner cuts it — the first few tokens kept,
 * the rest taken from the end, the beginning of the system prompt lost — without a word to the client.
 */
import { countTokens } from '../../src/common/tokenizer';

export interface Message {
  role: string;
  content: string;
}

/** The prompt as a chat template renders it (role markers, one message after the other). */
export function render(messages: readonly Message[]): string {
  return messages.map((m) => `<|${m.role}|>\n${m.content}\n`).join('');
}

/** Tokens of a text as the fake model counts them. */
export const modelTokens = (text: string, ratio: number) => Math.ceil(countTokens(text) * ratio);

export interface Served {
  /** The messages the model actually reads. */
  messages: Message[];
  /** Tokens of the whole prompt as sent, and of what the model read. */
  sent_tokens: number;
  read_tokens: number;
  cut: boolean;
}

/**
 * The prompt the model reads in a window of `window` tokens, `reserve` of them kept for the answer. When
 * it is longer, the system message loses its beginning (the smallest cut that fits, found by bisection);
 * the user's question, at the end, survives — which is how an answer from a cut prompt looks plausible.
 */
export function serve(messages: readonly Message[], window: number, ratio: number, reserve = 0): Served {
  const all = messages.map((m) => ({ role: m.role, content: m.content }));
  const sent = modelTokens(render(all), ratio);
  const room = Math.max(1, window - reserve);
  if (sent <= room) return { messages: all, sent_tokens: sent, read_tokens: sent, cut: false };
  const system = all[0]!;
  const tokensFrom = (k: number) => modelTokens(render([{ role: system.role, content: system.content.slice(k) }, ...all.slice(1)]), ratio);
  let lo = 0;
  let hi = system.content.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokensFrom(mid) <= room) hi = mid;
    else lo = mid + 1;
  }
  const cutMessages = [{ role: system.role, content: system.content.slice(lo) }, ...all.slice(1)];
  return { messages: cutMessages, sent_tokens: sent, read_tokens: Math.min(room, tokensFrom(lo)), cut: true };
}
