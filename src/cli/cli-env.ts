import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DataDir } from '../common/data-dir';
import { UsageError } from '../common/errors';
import { EmbeddingConfig } from '../index/embed/embedding-client';
import { ChatConfig } from '../harness/model-client';
import { IngestOptions } from '../index/model';
import { Budgets } from '../harness/budget';
import { Redactor } from '../common/redact';
import { TraceMode } from '../trace/trace-model';
import { type AppSettings, DEFAULT_SETTINGS, type KeyProvider, fixedKeys } from '../app/settings';

/** Only the CLI reads the environment; the core gets plain values. */
export function resolveStore(flag: string | undefined, env: NodeJS.ProcessEnv): DataDir {
  const dir = flag ?? env.DOCQA_HOME ?? path.join(os.homedir(), '.docqa');
  return new DataDir(path.resolve(dir));
}

const intVar = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .optional();

const EnvIngest = z.object({
  DOCQA_MAX_FILE_BYTES: intVar('DOCQA_MAX_FILE_BYTES'),
  DOCQA_MAX_DOCUMENT_MS: intVar('DOCQA_MAX_DOCUMENT_MS'),
  DOCQA_MAX_WORKER_MEMORY_MB: intVar('DOCQA_MAX_WORKER_MEMORY_MB'),
  DOCQA_BLOCK_TARGET_TOKENS: intVar('DOCQA_BLOCK_TARGET_TOKENS'),
  DOCQA_BLOCK_MAX_TOKENS: intVar('DOCQA_BLOCK_MAX_TOKENS'),
  DOCQA_BLOCK_MIN_TOKENS: intVar('DOCQA_BLOCK_MIN_TOKENS'),
});

function ingestOptionsFromEnv(env: NodeJS.ProcessEnv): IngestOptions {
  const e = EnvIngest.safeParse(env);
  if (!e.success) throw new UsageError(e.error.issues[0]!.message);
  const v = e.data;
  const parsed = IngestOptions.safeParse({
    max_file_bytes: v.DOCQA_MAX_FILE_BYTES,
    max_document_ms: v.DOCQA_MAX_DOCUMENT_MS,
    max_worker_memory_mb: v.DOCQA_MAX_WORKER_MEMORY_MB,
    chunking: {
      target_tokens: v.DOCQA_BLOCK_TARGET_TOKENS ?? 256,
      max_tokens: v.DOCQA_BLOCK_MAX_TOKENS ?? 512,
      min_tokens: v.DOCQA_BLOCK_MIN_TOKENS ?? 48,
    },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`invalid ingestion settings (${issue.path.join('.') || 'chunking'}): ${issue.message}`);
  }
  return parsed.data;
}

/**
 * DOCQA_EMBEDDING_PROVIDER=none is keyword-only; otherwise an OpenAI-compatible endpoint must be named
 * (there is no default embedding provider). Its key is the key provider's (keysFromEnv).
 */
function embeddingFromEnv(env: NodeJS.ProcessEnv): EmbeddingConfig {
  const provider = (env.DOCQA_EMBEDDING_PROVIDER || 'openai-compatible').trim();
  if (provider === 'none') return { provider: 'none' };
  if (provider !== 'openai-compatible') throw new UsageError(`DOCQA_EMBEDDING_PROVIDER must be "openai-compatible" or "none", not "${provider}"`);
  if (!env.DOCQA_EMBEDDING_BASE_URL || !env.DOCQA_EMBEDDING_MODEL) {
    throw new UsageError('set DOCQA_EMBEDDING_BASE_URL and DOCQA_EMBEDDING_MODEL (and DOCQA_EMBEDDING_API_KEY), or DOCQA_EMBEDDING_PROVIDER=none for keyword-only search');
  }
  const dims = env.DOCQA_EMBEDDING_DIMENSIONS;
  if (dims !== undefined && !/^\d+$/.test(dims)) throw new UsageError('DOCQA_EMBEDDING_DIMENSIONS must be a whole number');
  const parsed = EmbeddingConfig.safeParse({
    provider: 'openai-compatible',
    base_url: env.DOCQA_EMBEDDING_BASE_URL,
    model: env.DOCQA_EMBEDDING_MODEL,
    dimensions: dims === undefined ? null : Number(dims),
  });
  if (!parsed.success) throw new UsageError(`invalid embedding settings (${parsed.error.issues[0]!.path.join('.')}): ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

/** Snapshot retention from DOCQA_KEEP_SNAPSHOTS (count, default 5) and DOCQA_KEEP_SNAPSHOT_DAYS (age, default none). */
function retentionFromEnv(env: NodeJS.ProcessEnv): AppSettings['retention'] {
  const count = env.DOCQA_KEEP_SNAPSHOTS;
  const days = env.DOCQA_KEEP_SNAPSHOT_DAYS;
  if (count !== undefined && !/^\d+$/.test(count)) throw new UsageError('DOCQA_KEEP_SNAPSHOTS must be a whole number');
  if (days !== undefined && !/^\d+(\.\d+)?$/.test(days)) throw new UsageError('DOCQA_KEEP_SNAPSHOT_DAYS must be a number of days');
  return { keep: count === undefined ? DEFAULT_SETTINGS.retention.keep : Number(count), keep_days: days === undefined ? null : Number(days) };
}

/** The chat model from DOCQA_CHAT_* (DeepSeek by default); its key is the key provider's (keysFromEnv). */
function chatFromEnv(env: NodeJS.ProcessEnv): ChatConfig {
  const thinking = env.DOCQA_CHAT_THINKING;
  if (thinking !== undefined && thinking !== 'enabled' && thinking !== 'disabled') throw new UsageError('DOCQA_CHAT_THINKING must be "enabled" or "disabled"');
  const parsed = ChatConfig.safeParse({
    base_url: env.DOCQA_CHAT_BASE_URL || undefined,
    model: env.DOCQA_CHAT_MODEL || undefined,
    thinking,
  });
  if (!parsed.success) throw new UsageError(`invalid chat settings (${parsed.error.issues[0]!.path.join('.')}): ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

const RUN_VARS = {
  DOCQA_MAX_CONTEXT_TOKENS: 'max_context_tokens',
  DOCQA_MAX_REQUEST_TOKENS: 'max_request_tokens',
  DOCQA_FINAL_RESERVE_TOKENS: 'finalization_reserve_tokens',
  DOCQA_MAX_TOOL_CALLS: 'max_tool_calls',
} as const;

/**
 * Budgets (DOCQA_MAX_CONTEXT_TOKENS 100K, DOCQA_MAX_REQUEST_TOKENS 400K, DOCQA_FINAL_RESERVE_TOKENS 4K,
 * DOCQA_MAX_TOOL_CALLS 8), stopping thresholds (DOCQA_NO_GAIN_THRESHOLD, DOCQA_VIOLATION_THRESHOLD, 2 each),
 * the longest question (DOCQA_MAX_QUESTION_CHARS, 4000), the bound on a follow-up's earlier turns in
 * its prompts (DOCQA_MAX_CONVERSATION_TOKENS, 2000; 0 sends none), the trace mode (DOCQA_TRACE=metadata|full) and
 * how many traces to keep (DOCQA_KEEP_TRACES, 500).
 */
function runSettingsFromEnv(env: NodeJS.ProcessEnv): Pick<AppSettings, 'run' | 'trace'> {
  const whole = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`${name} must be a whole number, not "${v}"`);
    return Number(v);
  };
  const raw: Record<string, number | undefined> = {};
  for (const [name, key] of Object.entries(RUN_VARS)) raw[key] = whole(name);
  const budgets = Budgets.safeParse(raw);
  if (!budgets.success) throw new UsageError(`invalid budget (${budgets.error.issues[0]!.path.join('.')}): ${budgets.error.issues[0]!.message}`);
  const defaults = DEFAULT_SETTINGS.run;
  const noGain = whole('DOCQA_NO_GAIN_THRESHOLD') ?? defaults.thresholds.no_gain;
  const violations = whole('DOCQA_VIOLATION_THRESHOLD') ?? defaults.thresholds.violations;
  if (noGain < 1 || violations < 1) throw new UsageError('DOCQA_NO_GAIN_THRESHOLD and DOCQA_VIOLATION_THRESHOLD must be at least 1');
  const mode = TraceMode.safeParse(env.DOCQA_TRACE || 'metadata');
  if (!mode.success) throw new UsageError(`DOCQA_TRACE must be "metadata" or "full", not "${env.DOCQA_TRACE}"`);
  const keep = whole('DOCQA_KEEP_TRACES') ?? DEFAULT_SETTINGS.trace.keep;
  if (keep < 1) throw new UsageError('DOCQA_KEEP_TRACES must be at least 1');
  const maxQuestionChars = whole('DOCQA_MAX_QUESTION_CHARS') ?? defaults.max_question_chars;
  if (maxQuestionChars < 1) throw new UsageError('DOCQA_MAX_QUESTION_CHARS must be at least 1');
  const maxConversationTokens = whole('DOCQA_MAX_CONVERSATION_TOKENS') ?? defaults.max_conversation_tokens;
  return { run: { budgets: budgets.data, thresholds: { no_gain: noGain, violations }, max_question_chars: maxQuestionChars, max_conversation_tokens: maxConversationTokens }, trace: { mode: mode.data, keep } };
}

/** Both API keys from the environment: everything the CLI prints or writes is scrubbed of them. */
export function redactorFromEnv(env: NodeJS.ProcessEnv): Redactor {
  return new Redactor([env.DOCQA_CHAT_API_KEY, env.DOCQA_EMBEDDING_API_KEY]);
}

/** The parts of the settings a command reads from the environment (the rest keep their defaults). */
export type SettingsPart = 'ingest' | 'chat' | 'run' | 'embedding' | 'embedding-if-set' | 'retention';

/**
 * The application layer's settings from DOCQA_* variables. Each command names the parts it uses, so a
 * bad variable is reported only by the commands it affects. `embedding` must be configured (or
 * DOCQA_EMBEDDING_PROVIDER=none); `embedding-if-set` falls back to none (a snapshot built with
 * embeddings then says what is missing).
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv, parts: readonly SettingsPart[]): AppSettings {
  const s: AppSettings = structuredClone(DEFAULT_SETTINGS);
  if (parts.includes('ingest')) s.ingest = ingestOptionsFromEnv(env);
  if (parts.includes('chat')) s.chat = chatFromEnv(env);
  if (parts.includes('run')) Object.assign(s, runSettingsFromEnv(env));
  if (parts.includes('embedding')) s.embedding = embeddingFromEnv(env);
  else if (parts.includes('embedding-if-set')) {
    try {
      s.embedding = embeddingFromEnv(env);
    } catch {
      s.embedding = { provider: 'none' };
    }
  }
  if (parts.includes('retention')) s.retention = retentionFromEnv(env);
  return s;
}

/** Both keys from the environment, handed to the application layer when a request needs them. */
export function keysFromEnv(env: NodeJS.ProcessEnv): KeyProvider {
  return fixedKeys(env.DOCQA_CHAT_API_KEY || undefined, env.DOCQA_EMBEDDING_API_KEY || undefined);
}
