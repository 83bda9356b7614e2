import { z } from 'zod';

/**
 * A failed call to one of the two cloud services (the chat model, the embedding model), described so a
 * person can act on it: which service, which host and port, the HTTP status or network error, the
 * service's own words (with the key removed), how many attempts were made, and what to change. The
 * same value reaches `ask --json`, the trace and the UI; `describeFailure` turns it into one sentence.
 */
export const PROVIDERS = ['chat', 'embedding'] as const;
export const Provider = z.enum(PROVIDERS);
export type Provider = z.infer<typeof Provider>;

export const FAILURE_KINDS = [
  'missing_key',
  'auth',
  'balance',
  'not_found',
  'rate_limited',
  'server_error',
  'unreachable',
  'timeout',
  'tls',
  'context_length',
  'bad_response',
  'truncated',
  'empty_answer',
  'rejected',
] as const;
export const FailureKind = z.enum(FAILURE_KINDS);
export type FailureKind = z.infer<typeof FailureKind>;

/** What the person should do next; each host words it with its own setting names. */
export const FAILURE_ACTIONS = ['set_key', 'check_key', 'check_balance', 'check_base_url', 'check_model', 'wait_and_retry', 'shorten_request', 'check_tls'] as const;
export const FailureAction = z.enum(FAILURE_ACTIONS);
export type FailureAction = z.infer<typeof FailureAction>;

export const ProviderFailure = z.object({
  provider: Provider,
  kind: FailureKind,
  /** host:port of the base URL (the port is explicit even when it is the scheme's default). */
  endpoint: z.string(),
  model: z.string().nullable(),
  status: z.number().int().nullable(),
  /** A network error code (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED, …) when no HTTP answer came. */
  network_error: z.string().nullable(),
  /** The service's own message, without the key and cut to a readable length. */
  provider_message: z.string().nullable(),
  attempts: z.number().int().min(0),
  retryable: z.boolean(),
  action: FailureAction,
  /** Set when the service asked to wait longer than the retry policy allows, so no retry was made. */
  retry_after_refused: z.object({ asked_ms: z.number().int().min(0), limit_ms: z.number().int().min(0) }).nullable().default(null),
});
export type ProviderFailure = z.infer<typeof ProviderFailure>;

