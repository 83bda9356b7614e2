import { z } from 'zod';
import { ENV_SETTING_NAMES, type Provider, type SettingNames } from '../common/provider-failure';
import { Budgets } from '../harness/budget';
import { ChatConfig } from '../harness/model-client';
import { EmbeddingConfig } from '../index/embed/embedding-client';
import { IngestOptions } from '../index/model';
import { TraceMode } from '../trace/trace-model';

/**
 * Everything a host configures, in one schema: the CLI builds it from DOCQA_* variables, the extension
 * from its settings. Keys are not settings: they come from the host's key provider, at request time.
 */
export const AppSettings = z.object({
  chat: ChatConfig.default(ChatConfig.parse({})),
  embedding: EmbeddingConfig.default({ provider: 'none' }),
  ingest: IngestOptions.default(IngestOptions.parse({})),
  run: z
    .object({
      budgets: Budgets.default(Budgets.parse({})),
      thresholds: z.object({ no_gain: z.number().int().min(1).default(2), violations: z.number().int().min(1).default(2) }).default({ no_gain: 2, violations: 2 }),
      /** Longest question accepted, in characters. */
      max_question_chars: z.number().int().min(1).default(4000),
      /** Bound on a follow-up's earlier questions and answers in its prompts (the most recent that fit go in; 0: none). */
      max_conversation_tokens: z.number().int().min(0).default(2000),
    })
    .default({ budgets: Budgets.parse({}), thresholds: { no_gain: 2, violations: 2 }, max_question_chars: 4000, max_conversation_tokens: 2000 }),
  trace: z.object({ mode: TraceMode.default('metadata'), keep: z.number().int().min(1).default(500) }).default({ mode: 'metadata', keep: 500 }),
  retention: z.object({ keep: z.number().int().min(0).default(5), keep_days: z.number().min(0).nullable().default(null) }).default({ keep: 5, keep_days: null }),
});
export type AppSettings = z.infer<typeof AppSettings>;

export const DEFAULT_SETTINGS: AppSettings = AppSettings.parse({});

/**
 * The words a host uses for what a person can change: its setting names (for the advice in provider
 * errors) and the command that builds an index.
 */
export interface HostWords {
  settings: Record<Provider, SettingNames>;
  /** How the person builds an index in this host (`docqa index`, "DocQA: Rebuild Index"). */
  buildCommand: string;
  /** How the person makes the index keyword-only. */
  keywordOnly: string;
  /** How the person adds a folder as a source. */
  addSourceCommand: string;
  /** How the person picks a model from the server's list. */
  pickModelCommand: string;
}

export const CLI_WORDS: HostWords = {
  settings: ENV_SETTING_NAMES,
  buildCommand: '`docqa index`',
  keywordOnly: 'DOCQA_EMBEDDING_PROVIDER=none',
  addSourceCommand: '`docqa sources add`',
  pickModelCommand: '`docqa models`',
};

/** The keys, asked for when a request needs them (never stored by the application layer). */
export interface KeyProvider {
  chat(): Promise<string | undefined>;
  embedding(): Promise<string | undefined>;
}

/** Keys known up front (the CLI's environment, tests). */
export function fixedKeys(chat: string | undefined, embedding: string | undefined): KeyProvider {
  return { chat: async () => chat, embedding: async () => embedding };
}

/** Where the application layer reports what it does; the host decides where it goes (never the console). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const NULL_LOGGER: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export interface Clock {
  now(): Date;
}

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };
