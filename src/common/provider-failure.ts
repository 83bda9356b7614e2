import { Redactor } from './redact';
import { retryAfterWords } from './retry-policy';
import { type FailureAction, type FailureKind, type Provider, type ProviderFailure } from '../shared/provider-failure';

// The schemas are part of the run's vocabulary (src/shared): what a UI and a stored record read.
export { FAILURE_ACTIONS, FAILURE_KINDS, FailureAction, FailureKind, PROVIDERS, Provider, ProviderFailure } from '../shared/provider-failure';
/** `host:port` of a base URL; the URL's text when it does not parse. */
export function endpointOf(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    const port = u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
    return port ? `${u.hostname}:${port}` : u.hostname;
  } catch {
    return baseUrl;
  }
}

/** Whether a base URL points at this machine (a local server may need no key). */
export function isLoopback(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

const TLS_CODES = /^(CERT_|ERR_TLS_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_SSL_)/;
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ESOCKETTIMEDOUT']);

/**
 * fetch refuses the ports browsers block (9, 6000, 10080, …) before connecting, with an error whose only
 * evidence is the words "bad port": named here so the sentence says why instead of nothing.
 */
export const BAD_PORT = 'ERR_BAD_PORT';

/** The first `code` on an error's cause chain (fetch wraps the socket's error twice). */
export function networkErrorCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    if ((e as { message?: unknown }).message === 'bad port') return BAD_PORT;
  }
  return null;
}

/** A connection failure by its network code: a TLS problem, a timeout, or an unreachable host. */
export function connectionKind(code: string | null): FailureKind {
  if (code && TLS_CODES.test(code)) return 'tls';
  if (code && TIMEOUT_CODES.has(code)) return 'timeout';
  return 'unreachable';
}

/**
 * A connection failure's kind and whether one retry may help: a reset, a refusal or a timeout can be
 * a moment's trouble (a restarting server, a busy balancer); a certificate problem or a host name that
 * does not exist (ENOTFOUND: DNS answered) will be the same a moment later.
 */
export function connectionFailure(code: string | null): { kind: FailureKind; retryable: boolean } {
  const kind = connectionKind(code);
  return { kind, retryable: kind !== 'tls' && code !== 'ENOTFOUND' && code !== BAD_PORT };
}

/** The kinds an HTTP error status can be. */
export type HttpFailureKind = Extract<FailureKind, 'context_length' | 'auth' | 'balance' | 'not_found' | 'rate_limited' | 'server_error' | 'rejected'>;

const CONTEXT_WORDS = /maximum context length|context length|context window|too many tokens/i;

/**
 * The kind of an HTTP error status and whether it is transient. A context-length error is told apart
 * by its code (OpenAI's `context_length_exceeded`) or, where the service sends only a generic code
 * (DeepSeek: `invalid_request_error`), by its words.
 */
export function httpKind(status: number, message: string, code: string | null = null): { kind: HttpFailureKind; retryable: boolean } {
  if (code === 'context_length_exceeded' || (status === 400 && CONTEXT_WORDS.test(message))) return { kind: 'context_length', retryable: false };
  if (status === 401 || status === 403) return { kind: 'auth', retryable: false };
  if (status === 402) return { kind: 'balance', retryable: false };
  if (status === 404) return { kind: 'not_found', retryable: false };
  if (status === 429) return { kind: 'rate_limited', retryable: true };
  if (status === 408 || status === 409 || status >= 500) return { kind: 'server_error', retryable: true };
  return { kind: 'rejected', retryable: false };
}

const ACTION_OF: Record<FailureKind, FailureAction> = {
  missing_key: 'set_key',
  auth: 'check_key',
  balance: 'check_balance',
  not_found: 'check_model',
  rate_limited: 'wait_and_retry',
  server_error: 'wait_and_retry',
  unreachable: 'check_base_url',
  timeout: 'wait_and_retry',
  tls: 'check_tls',
  context_length: 'shorten_request',
  bad_response: 'check_base_url',
  truncated: 'wait_and_retry',
  empty_answer: 'wait_and_retry',
  rejected: 'check_model',
};

export function actionFor(kind: FailureKind): FailureAction {
  return ACTION_OF[kind];
}

/** A provider message fit for a person: one line, at most 300 characters. */
export function tidyMessage(message: string | null | undefined): string | null {
  if (!message) return null;
  const line = message.replace(/\s+/g, ' ').trim();
  if (!line) return null;
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** The service's own message inside an SDK error (its body's `error.message`, else the SDK's text without the status). */
export function serviceMessage(err: { error?: unknown; message: string }): string {
  const e = err.error as { message?: unknown } | undefined;
  return typeof e?.message === 'string' ? e.message : err.message.replace(/^\d{3}\s*/, '');
}

/** The service's error code inside an SDK error's body (`error.code`), when it is a string. */
export function serviceCode(err: { error?: unknown }): string | null {
  const code = (err.error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : null;
}

/**
 * An error object a service sent with HTTP 200 (inside an SSE stream, or as the whole body): its words,
 * and the status it names, if any (some proxies put `code: 429` or `status: 503` in it). Null when the
 * value is not an error object.
 */
export function errorInBody(value: unknown): { message: string; status: number | null; code: string | null } | null {
  const e = (value as { error?: unknown } | null)?.error;
  if (!e || typeof e !== 'object') return null;
  const { message, code, status } = e as { message?: unknown; code?: unknown; status?: unknown };
  const named = [code, status].find((x) => typeof x === 'number' && x >= 400 && x < 600) as number | undefined;
  return { message: typeof message === 'string' ? message : JSON.stringify(e), status: named ?? null, code: typeof code === 'string' ? code : null };
}

/**
 * The kind of an error sent with HTTP 200: by the status it names when it names one, a context-length
 * error by its code or words, anything else a broken answer (transient: worth the one retry).
 */
export function bodyErrorKind(e: { message: string; status: number | null; code: string | null }): { kind: FailureKind; retryable: boolean } {
  if (e.status !== null) return httpKind(e.status, e.message, e.code);
  if (e.code === 'context_length_exceeded' || CONTEXT_WORDS.test(e.message)) return { kind: 'context_length', retryable: false };
  return { kind: 'bad_response', retryable: true };
}

/**
 * One service endpoint as its client sees it: where it is (host and port), which model, and its key,
 * used only to take it out of whatever the service says back. Both clients describe their failures
 * through it, so the two read alike.
 */
export class ProviderEndpoint {
  readonly endpoint: string;
  private readonly redactor: Redactor;

  constructor(
    readonly provider: Provider,
    baseUrl: string,
    readonly model: string,
    apiKey: string,
  ) {
    this.endpoint = endpointOf(baseUrl);
    this.redactor = new Redactor([apiKey]);
  }

  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** A failure of one attempt (a client that retries sets `attempts` on what it finally reports). */
  failure(kind: FailureKind, retryable: boolean, status: number | null = null, network: string | null = null, said: string | null = null): ProviderFailure {
    return { provider: this.provider, kind, endpoint: this.endpoint, model: this.model, status, network_error: network, provider_message: tidyMessage(said ? this.redact(said) : null), attempts: 1, retryable, action: actionFor(kind), retry_after_refused: null };
  }
}

/** The names a host gives its settings, so the advice says exactly what to change. */
export interface SettingNames {
  key: string;
  base_url: string;
  model: string;
}

export const ENV_SETTING_NAMES: Record<Provider, SettingNames> = {
  chat: { key: 'DOCQA_CHAT_API_KEY', base_url: 'DOCQA_CHAT_BASE_URL', model: 'DOCQA_CHAT_MODEL' },
  embedding: { key: 'DOCQA_EMBEDDING_API_KEY', base_url: 'DOCQA_EMBEDDING_BASE_URL', model: 'DOCQA_EMBEDDING_MODEL' },
};

const WHAT: Record<FailureKind, string> = {
  missing_key: 'has no API key',
  auth: 'rejected the API key',
  balance: 'refused the request: the account has no balance left',
  not_found: 'does not know the model or the URL',
  rate_limited: 'is rate-limiting the requests',
  server_error: 'failed on its side',
  unreachable: 'could not be reached',
  timeout: 'did not answer in time',
  tls: 'could not be reached securely (TLS certificate problem)',
  context_length: 'refused a request longer than the model’s context',
  bad_response: 'sent an answer that is not what an OpenAI-compatible service sends',
  truncated: 'cut its answer off before the end',
  empty_answer: 'sent an empty answer',
  rejected: 'rejected the request',
};

function advice(f: ProviderFailure, names: SettingNames): string {
  const service = f.provider === 'chat' ? 'chat' : 'embedding';
  switch (f.action) {
    case 'set_key':
      return `Set the ${service} API key (${names.key}).`;
    case 'check_key':
      return `Check the ${service} API key (${names.key}) and that it belongs to ${f.endpoint}.`;
    case 'check_balance':
      return `Top up the account of the ${service} service, or use another key (${names.key}).`;
    case 'check_model':
      return `Check the ${service} model name (${names.model}) and the base URL (${names.base_url}).`;
    case 'check_base_url':
      if (f.network_error === BAD_PORT) return `Its port is one that browsers and Node refuse to connect to (a blocked port such as 9 or 6000); put the service on another port and change the ${service} base URL (${names.base_url}).`;
      return `Check the ${service} base URL (${names.base_url}) and the network.`;
    case 'check_tls':
      return `Check the ${service} base URL (${names.base_url}): its certificate is not trusted here.`;
    case 'shorten_request':
      return 'Ask a narrower question or lower the context budget.';
    case 'wait_and_retry':
      return 'Wait a little and try again.';
  }
}

/**
 * What happened, in one English sentence without advice (who, what, the evidence, the attempts, a
 * Retry-After not waited for): for places that serve every host alike, such as a failed document.
 */
export function failureSentence(f: ProviderFailure): string {
  const service = f.provider === 'chat' ? 'chat model' : 'embedding model';
  const who = `The ${service}${f.model ? ` ${f.model}` : ''} at ${f.endpoint}`;
  const evidence = [f.status !== null ? `HTTP ${f.status}` : null, f.network_error].filter(Boolean).join(', ');
  const said = f.provider_message ? `${evidence ? ': ' : ''}“${f.provider_message}”` : '';
  const why = evidence || said ? ` (${evidence}${said})` : '';
  const tries = f.attempts > 0 ? `, after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}` : '';
  const wait = f.retry_after_refused ? `; it ${retryAfterWords(f.retry_after_refused.asked_ms, f.retry_after_refused.limit_ms)}` : '';
  return `${who} ${WHAT[f.kind]}${why}${tries}${wait}.`;
}

/** One sentence a person can act on, in English (the words hosts show and logs keep). */
export function describeFailure(f: ProviderFailure, names: SettingNames = ENV_SETTING_NAMES[f.provider]): string {
  return `${failureSentence(f)} ${advice(f, names)}`;
}
