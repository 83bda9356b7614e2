import { z } from 'zod';
import { AskEvent } from './ask-event';
import { Conversation, ConversationSummary } from './conversation';
import { QuestionScope, ScopeTargets } from './question-scope';
import { StartingQuestion } from './starting-question';

/**
 * The chat view's protocol, shared by the extension host and the webview (no node or vscode imports).
 * One typed map of requests (webview → host) with the schema of each reply, plus one event union per
 * direction. Rules both sides keep (docs/chat-webview.md):
 * - the host posts nothing before the webview's `ready`, and answers `ready` with `init`;
 * - every request carries an `id`; the host answers each id exactly once with a `reply`, unless the
 *   webview sent `cancel` for it first (then a late reply is ignored);
 * - the reply to `ask` is posted before any `ask_event` of that turn;
 * - every inbound message is validated on arrival; an invalid one is dropped (the webview reports it as `log`).
 */

export const UiLang = z.enum(['en', 'zh']);
export type UiLang = z.infer<typeof UiLang>;

/** A block to preview or open; the snapshot the citation was made against, when known. */
export const BlockTarget = z.object({ doc_id: z.string().min(1), block_id: z.string().min(1), snapshot_id: z.string().optional() });
export type BlockTarget = z.infer<typeof BlockTarget>;

/** Only web links leave the webview; `command:`, `vscode:`, `javascript:`, `data:` and the rest never do. */
export const WebUrl = z.string().refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'only http(s) URLs');

export const FailedDocumentBrief = z.object({ title: z.string(), path: z.string(), reason: z.string() });
export type FailedDocumentBrief = z.infer<typeof FailedDocumentBrief>;

/**
 * The active knowledge base as the chat discloses it: `partial` when some documents could not be
 * indexed (listed in `failed`), `keyword_only` when it has no embeddings, `none` when nothing is built.
 */
export const KnowledgeBase = z.object({
  snapshot_id: z.string().nullable(),
  state: z.enum(['none', 'building', 'ready', 'partial', 'keyword_only']),
  /** Documents indexed in the active snapshot. */
  documents: z.number().int().min(0),
  failed: z.array(FailedDocumentBrief),
});
export type KnowledgeBase = z.infer<typeof KnowledgeBase>;

/**
 * How far the person has come (the first screen's guidance): a chat model to ask, sources to index.
 * `chat_ready`: a chat key is set, or the endpoint is on this machine (local servers need none).
 */
export const Setup = z.object({ chat_ready: z.boolean(), sources: z.number().int().min(0) });
export type Setup = z.infer<typeof Setup>;

/** The commands the chat's own buttons may run, and nothing else (no command URIs in the page). */
export const ChatCommand = z.enum(['docqa.setChatKey', 'docqa.addFolder', 'docqa.rebuildIndex', 'docqa.openWalkthrough', 'docqa.testConnection']);
export type ChatCommand = z.infer<typeof ChatCommand>;

/** One answer (`turn_id`) or the whole conversation (`turn_id` null) to keep. */
const KeepTarget = z.object({ conversation_id: z.string().min(1), turn_id: z.string().min(1).nullable() });

const Empty = z.object({});
const Opened = z.object({ opened: z.boolean(), message: z.string().optional() });

/** Each request: its parameters, the value of its reply, and how long the webview waits for it (s). */
export const CHAT_REQUESTS = {
  /** Starts one run; `conversation_id: null` starts a new conversation. Events follow as `ask_event`. */
  ask: { params: z.object({ conversation_id: z.string().nullable(), question: z.string().min(1), lang: UiLang.optional(), scope: QuestionScope.optional() }), result: z.object({ conversation_id: z.string(), turn_id: z.string() }), timeout_s: 30 },
  /** Aborts a running turn; it ends with a release of status CANCELLED. */
  stop: { params: z.object({ turn_id: z.string() }), result: z.object({ stopped: z.boolean() }), timeout_s: 10 },
  /** Forgets the current conversation in this view (nothing is deleted). */
  new_chat: { params: Empty, result: Empty, timeout_s: 10 },
  list_conversations: { params: Empty, result: z.array(ConversationSummary), timeout_s: 10 },
  open_conversation: { params: z.object({ id: z.string() }), result: Conversation, timeout_s: 10 },
  delete_conversation: { params: z.object({ id: z.string() }), result: z.object({ deleted: z.boolean() }), timeout_s: 10 },
  /** A chip's hover: the block's text as indexed, and whether its file is still there. */
  block_preview: { params: BlockTarget, result: z.object({ found: z.boolean(), doc_title: z.string(), section_path: z.string(), text: z.string(), file_exists: z.boolean() }), timeout_s: 10 },
  /** A chip's click: opens the source at the block; `message` says why not (e.g. the file is gone). */
  open_citation: { params: BlockTarget, result: Opened, timeout_s: 30 },
  /** An http(s) link in an answer; the host asks the user before opening it. */
  open_link: { params: z.object({ url: WebUrl }), result: Opened, timeout_s: 120 },
  open_trace: { params: z.object({ run_id: z.string() }), result: Opened, timeout_s: 30 },
  /** The FAILED release's button: the host runs its connection test and reports in words (no secrets). */
  test_connection: { params: Empty, result: z.object({ ok: z.boolean(), message: z.string() }), timeout_s: 120 },
  /** What `@` offers: the active snapshot's sources and documents. */
  scope_targets: { params: Empty, result: ScopeTargets, timeout_s: 30 },
  /** Questions drawn from the active knowledge base, for an empty chat, in `lang`. */
  starting_questions: { params: z.object({ lang: UiLang }), result: z.object({ snapshot_id: z.string().nullable(), questions: z.array(StartingQuestion) }), timeout_s: 30 },
  /** The answer (or conversation) as Markdown with citation links, onto the clipboard by the host. */
  copy_markdown: { params: KeepTarget, result: z.object({ copied: z.boolean(), message: z.string().optional() }), timeout_s: 30 },
  /** The answer (or conversation) saved as a Markdown note into a folder the person picks (the host asks). */
  save_note: { params: KeepTarget, result: z.object({ saved: z.boolean(), file: z.string().optional(), message: z.string().optional() }), timeout_s: 600 },
  /** One of the chat's own buttons: runs an allowed command. */
  run_command: { params: z.object({ command: ChatCommand }), result: Empty, timeout_s: 600 },
} as const;
export type ChatMethod = keyof typeof CHAT_REQUESTS;
export type ChatParams<M extends ChatMethod> = z.infer<(typeof CHAT_REQUESTS)[M]['params']>;
export type ChatResult<M extends ChatMethod> = z.infer<(typeof CHAT_REQUESTS)[M]['result']>;
export const CHAT_METHODS = Object.keys(CHAT_REQUESTS) as ChatMethod[];

const requestOf = <M extends ChatMethod>(m: M) => z.object({ type: z.literal('request'), id: z.string().min(1), method: z.literal(m), params: CHAT_REQUESTS[m].params });
/** A request on the wire: `{type:'request', id, method, params}`, params checked against the method. */
export const ChatRequest = z.discriminatedUnion(
  'method',
  CHAT_METHODS.map((m) => requestOf(m)) as unknown as [ReturnType<typeof requestOf<'ask'>>, ...ReturnType<typeof requestOf<ChatMethod>>[]],
);
export type ChatRequest = { [M in ChatMethod]: { type: 'request'; id: string; method: M; params: ChatParams<M> } }[ChatMethod];

export const LogLevel = z.enum(['debug', 'info', 'warn', 'error']);

/** Everything the webview posts. */
export const ChatWebviewToHost = z.union([
  z.object({ type: z.literal('ready') }),
  /** The webview gave up on a request (user action, timeout, dispose): the host may abort its work. */
  z.object({ type: z.literal('cancel'), id: z.string() }),
  /** The webview's own diagnostics (an invalid message dropped, a failed render): for the host's log. */
  z.object({ type: z.literal('log'), level: LogLevel, message: z.string().max(2000) }),
  ChatRequest,
]);
export type ChatWebviewToHost = z.infer<typeof ChatWebviewToHost>;

export const ErrorInfo = z.object({ code: z.string(), message: z.string() });
export type ErrorInfo = z.infer<typeof ErrorInfo>;

/** The answer to one request id; `value` is checked by the webview against the method's result schema. */
export const ChatReply = z.union([
  z.object({ type: z.literal('reply'), id: z.string(), ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal('reply'), id: z.string(), ok: z.literal(false), error: ErrorInfo }),
]);
export type ChatReply = z.infer<typeof ChatReply>;

/** Host events (no reply). */
export const ChatEvent = z.discriminatedUnion('type', [
  /** The answer to `ready`: the UI language, the conversation to show (if any), the history, the knowledge base. */
  z.object({ type: z.literal('init'), ui_lang: UiLang, conversation: Conversation.nullable(), conversations: z.array(ConversationSummary), knowledge_base: KnowledgeBase, setup: Setup.optional() }),
  /** One event of a running turn, in order. */
  z.object({ type: z.literal('ask_event'), conversation_id: z.string(), turn_id: z.string(), event: AskEvent }),
  /** The turn broke off before or outside the run (no snapshot, no key, a crash): no release follows. */
  z.object({ type: z.literal('turn_error'), conversation_id: z.string(), turn_id: z.string(), code: z.string(), message: z.string() }),
  /** The stored conversation changed (a turn saved, a title set); the view shows it if it is the current one. */
  z.object({ type: z.literal('conversation_changed'), conversation: Conversation }),
  /** The history list changed (another window, a delete). */
  z.object({ type: z.literal('conversations'), conversations: z.array(ConversationSummary) }),
  z.object({ type: z.literal('knowledge_base'), knowledge_base: KnowledgeBase }),
  z.object({ type: z.literal('ui_lang'), ui_lang: UiLang }),
  /** The person set a key or added a source: the first screen's guidance follows. */
  z.object({ type: z.literal('setup'), setup: Setup }),
]);
export type ChatEvent = z.infer<typeof ChatEvent>;

export const ChatHostToWebview = z.union([ChatReply, ChatEvent]);
export type ChatHostToWebview = z.infer<typeof ChatHostToWebview>;

/** For the host: a reply value checked against its method before it is posted. */
export function replyOk<M extends ChatMethod>(method: M, id: string, value: ChatResult<M>): ChatReply {
  return { type: 'reply', id, ok: true, value: CHAT_REQUESTS[method].result.parse(value) };
}

export function replyError(id: string, code: string, message: string): ChatReply {
  return { type: 'reply', id, ok: false, error: { code, message } };
}
