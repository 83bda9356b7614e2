/**
 * Removes API keys and authorization headers from any text that leaves the process or reaches the disk
 * (trace records, error messages, exported spans, CLI output). Known secrets are replaced wherever they
 * occur; key-shaped strings and authorization headers are replaced even when nobody said they were
 * secret, because an upstream error may echo a key we were never told about (another tool's key, say).
 */
export const REDACTED = '[REDACTED]';

// Quotes may arrive JSON-escaped (\") because records are redacted after serialisation.
const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // "Authorization: Bearer xyz", "authorization":"Basic xyz"
  [/\b(authorization\\?["']?\s*[:=]\s*\\?["']?)(?:(?:bearer|basic|token)\s+)?[^\s"'\\,}]+/gi, `$1${REDACTED}`],
  [/\bbearer\s+[A-Za-z0-9._~+/=-]{6,}/gi, `Bearer ${REDACTED}`],
  // api_key=..., "api-key": "...", x-api-key: ...
  [/\b((?:x-)?api[_-]?key\\?["']?\s*[:=]\s*\\?["']?)[^\s"'\\,}]+/gi, `$1${REDACTED}`],
  // OpenAI / DeepSeek style keys: sk-..., sk-proj-...
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
];

export class Redactor {
  private readonly secrets: string[];

  /** Secrets shorter than 4 characters are ignored: replacing "a" everywhere would destroy the text. */
  constructor(secrets: ReadonlyArray<string | undefined | null> = []) {
    this.secrets = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.trim().length >= 4).map((s) => s.trim()))].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
    return out;
  }

  /** Deep-redacts every string in a JSON value (keys included). */
  redactValue<T>(value: T): T {
    return JSON.parse(this.redact(JSON.stringify(value))) as T;
  }
}
