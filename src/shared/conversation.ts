import { z } from 'zod';
import { AgentResult } from './run-result';
import { TurnStep } from './turn-steps';
import { ScopeSummary } from './question-scope';

/**
 * A chat conversation as it is kept on disk (one file per conversation, per workspace) and as a chat
 * view restores it: each question with the steps it took, its released answer and result, and its run
 * id (which opens its trace). Follow-up questions get the earlier questions and answers — never their
 * evidence — as context.
 */
/** 2: each step's scope and outcome carry their words (en, zh) and the release's; version 1 files are upgraded on read (conversation-migration.ts). */
export const CONVERSATION_FORMAT_VERSION = 2;

/** One tool call of a turn (the run's vocabulary: src/shared/turn-steps.ts). */
export { TurnStep };

export const TurnState = z.enum(['running', 'done', 'error', 'interrupted']);
export type TurnState = z.infer<typeof TurnState>;

export const ConversationTurn = z.object({
  /** Unique within the conversation; stable (the chat view keys on it). */
  turn_id: z.string(),
  question: z.string(),
  lang: z.enum(['zh', 'en']),
  asked_at: z.string(),
  /** running: the run has not ended (a window that finds it so after a crash marks it interrupted). */
  state: TurnState,
  run_id: z.string().nullable(),
  snapshot_id: z.string().nullable(),
  prompt_bundle: z.object({ id: z.string(), version: z.string(), hash: z.string() }).nullable(),
  steps: z.array(TurnStep),
  /** The released result (answer with verified citations, release, ledger, progress); null until it ends. */
  result: AgentResult.nullable(),
  /** Why no run took place or it broke off (a usage error, no snapshot…): code and message. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /**
   * The process running the turn, while it is `running` (added compatibly: absent in files written
   * without it). A reader on the same host that finds the process gone marks the turn interrupted.
   */
  owner: z.object({ pid: z.number().int(), host: z.string() }).optional(),
  /** A question limited to some documents (the chat's @): which ones its tools searched (added compatibly: absent = all). */
  scope: ScopeSummary.optional(),
});
export type ConversationTurn = z.infer<typeof ConversationTurn>;

export const Conversation = z.object({
  formatVersion: z.literal(CONVERSATION_FORMAT_VERSION),
  id: z.string(),
  /** The workspace this conversation belongs to (a key the host derives from its folders). */
  workspace: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  turns: z.array(ConversationTurn),
});
export type Conversation = z.infer<typeof Conversation>;

/** A conversation in a list: enough to show and pick it. */
export const ConversationSummary = z.object({ id: z.string(), title: z.string(), updated_at: z.string(), turns: z.number().int() });
export type ConversationSummary = z.infer<typeof ConversationSummary>;

/** A conversation file that cannot be read (damaged, or written by a newer DocQA): listed, never rewritten or removed unasked. */
export const UnreadableConversation = z.object({ id: z.string(), file: z.string(), code: z.string(), message: z.string() });
export type UnreadableConversation = z.infer<typeof UnreadableConversation>;

/** A workspace's conversations: the readable ones newest first (updated_at, then id), and the unreadable ones by id. */
export const ConversationListing = z.object({ conversations: z.array(ConversationSummary), unreadable: z.array(UnreadableConversation) });
export type ConversationListing = z.infer<typeof ConversationListing>;
