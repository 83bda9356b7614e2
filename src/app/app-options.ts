import type { ChatModel } from '../harness/loop-context';
import type { IngestPool } from '../index/ingest/ingest-pool';
import type { HostChatModel, HostModelSource } from './host-model';
import type { AppSettings, Clock, HostWords, KeyProvider, Logger } from './settings';

/** What a host gives the application layer (DocQaApp): its data directory, settings, keys and voice. */
export interface AppOptions {
  /** The data directory (created on first write). */
  dataDir: string;
  settings: AppSettings;
  /** Asked for a key when a request needs one; the application layer never keeps keys. */
  keys: KeyProvider;
  logger?: Logger;
  clock?: Clock;
  /** How this host names settings and commands in messages (default: the CLI's). */
  words?: HostWords;
  appVersion: string;
  /** The name of the question-size limit in this host, for the refusal (default DOCQA_MAX_QUESTION_CHARS). */
  questionLimitName?: string;
  /** A chat model instead of the configured endpoint (tests). */
  model?: ChatModel;
  /** An ingestion pool instead of the default workers (tests). */
  pool?: IngestPool;
  /** The host's own chat model when its settings choose one (VS Code's language models), asked per question. */
  hostModel?: HostModelSource;
}

/** Per question: cancellation, the events, and a host model for this question only (@docqa's dropdown). */
export interface AskCall<E> {
  signal?: AbortSignal;
  onEvent?: (e: E) => void;
  hostModel?: HostChatModel;
}
