import { z } from 'zod';
import { ENV_SETTING_NAMES, type Provider, type SettingNames } from '../common/provider-failure';
import { ChatConfig } from '../harness/model-client';
import { RunLimits } from '../harness/run-limits';
import { EmbeddingConfig } from '../index/embed/embedding-client';
import { IngestOptions } from '../index/model';
import { groupShape } from './settings-table/setting';
import { SETTINGS } from './settings-table/table';

/**
 * Everything a host configures, in one schema: the CLI builds it from DOCQA_* variables, the extension
 * from its settings, both through the settings table (settings-table/table.ts). The components' groups
 * (chat, embedding, ingest, the loop's budgets and thresholds) are their own schemas, with their
 * defaults; the rest of the run, trace and retention groups are the table's rows. Keys are not
 * settings: they come from the host's key provider, at request time.
 */
export const AppSettings = z.object({
  chat: ChatConfig.prefault({}),
  embedding: EmbeddingConfig.default({ provider: 'none' }),
  ingest: IngestOptions.prefault({}),
  run: RunLimits.extend(groupShape(SETTINGS, 'run')).prefault({}),
  trace: z.object(groupShape(SETTINGS, 'trace')).prefault({}),
  retention: z.object(groupShape(SETTINGS, 'retention')).prefault({}),
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
