import { z } from 'zod';

/**
 * The one retry policy of both cloud services (seed §1.3: a transient dependency error is retried at
 * most once). Each service call is retried in exactly one place — the embedding client for embeddings
 * (index builds and query embeddings alike), the harness's model turn for chat (it traces every
 * attempt and asks the budget first) — and both ask `decideRetry`. The openai SDK's own retries are
 * off (`maxRetries: 0`), so these are the only ones.
 */
export const RetryPolicy = z.object({
  /** Pause before the retry when the service does not say how long to wait. */
  retry_delay_ms: z.number().int().min(0).default(500),
  /** The longest Retry-After waited for; a longer one ends the call with an error that says so. */
  max_retry_after_ms: z.number().int().min(0).default(30_000),
});
export type RetryPolicy = z.infer<typeof RetryPolicy>;

export const DEFAULT_RETRY_POLICY: RetryPolicy = RetryPolicy.parse({});

/** A failed call is tried this many times in all: the first attempt and one retry. */
export const MAX_ATTEMPTS = 2;

export type RetryDecision =
  | { kind: 'retry'; delay_ms: number }
  /** `final`: not transient; `attempts_spent`: its one retry was used; `retry_after_too_long`: the service asked for a longer wait than the policy allows. */
  | { kind: 'give_up'; why: 'final' | 'attempts_spent' | 'retry_after_too_long' };

/**
 * Whether and when to try a failed attempt again. `attempt` is the number of the attempt that failed
 * (1 for the first); `retryAfterMs` is what the service asked for (null when it did not say).
 */
export function decideRetry(retryable: boolean, attempt: number, retryAfterMs: number | null, policy: RetryPolicy = DEFAULT_RETRY_POLICY): RetryDecision {
  if (!retryable) return { kind: 'give_up', why: 'final' };
  if (attempt >= MAX_ATTEMPTS) return { kind: 'give_up', why: 'attempts_spent' };
  if (retryAfterMs === null) return { kind: 'retry', delay_ms: policy.retry_delay_ms };
  if (retryAfterMs > policy.max_retry_after_ms) return { kind: 'give_up', why: 'retry_after_too_long' };
  return { kind: 'retry', delay_ms: retryAfterMs };
}

/** What a response's headers ask for, in ms: `retry-after-ms` (OpenAI's), `Retry-After` in seconds or as an HTTP-date; null when absent or unreadable. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined | null, nowMs: number): number | null {
  const ms = headers?.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers?.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP-date names its day and month ("Tue, 01 Dec 2026 12:00:00 GMT"); Date.parse alone would read "-3" as a year.
  const date = /[a-z]{3}/i.test(value) ? Date.parse(value) : NaN;
  // A date in the past means "now".
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : null;
}

/** Words for a Retry-After that was not waited for, e.g. "asked to retry after 120 s, more than the 30 s DocQA waits". */
export function retryAfterWords(askedMs: number, limitMs: number): string {
  const s = (ms: number) => `${Math.ceil(ms / 1000)} s`;
  return `asked to retry after ${s(askedMs)}, more than the ${s(limitMs)} DocQA waits`;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
