import type { ContextWindow } from '../common/served-window';
import { SERVER_NAMES } from '../common/served-window';
import type { ModelLoading } from '../app/local-models/local-chat';

const n = (x: number) => x.toLocaleString('en-US');

/** Said on stderr while a local server loads the chat model before the first answer. */
export function loadingLine(e: ModelLoading): string {
  const window = e.window !== null ? ` with a ${n(e.window)}-token window` : '';
  return `${SERVER_NAMES[e.server]} is loading ${e.model}${window}; the first answer waits for it (up to ${Math.round(e.timeout_ms / 1000)} s)…`;
}

/** The answer's budget line: the context budget used, of the configured one, and why when a served window set it. */
export function budgetLine(w: ContextWindow | undefined, largest: number, max: number): string {
  const head = `context: largest prompt ${n(largest)} of a ${n(max)}-token budget`;
  return w ? `${head} — ${w.reason}` : head;
}
