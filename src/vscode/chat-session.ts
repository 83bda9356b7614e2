import type { DocQaApp } from '../app/docqa-app';
import type { Logger } from '../app/settings';
import { DocQaError, errorMessage } from '../common/errors';
import type { BlockLocation } from '../shared/block-location';
import {
  type ChatEvent,
  type ChatHostToWebview,
  type ChatMethod,
  type ChatParams,
  type ChatRequest,
  type ChatResult,
  ChatWebviewToHost,
  type ChatCommand,
  type KnowledgeBase,
  type Setup,
  type UiLang,
  replyError,
  replyOk,
} from '../shared/chat-protocol';
import { knowledgeBaseOf } from './knowledge-base';

/** Where a citation opens: a text file at its lines, or a PDF at its page with the block's text to mark. */
export interface OpenTarget {
  path: string;
  location: BlockLocation;
  text: string;
  title: string;
}

type T = (message: string, ...args: Array<string | number>) => string;

/** What the chat needs from its host (VS Code, or a test): posting, opening things, the person's answers. */
export interface ChatPort {
  post(message: ChatHostToWebview): void;
  uiLang(): UiLang;
  /** The workspace key the history is kept under. */
  workspace(): string;
  /** The conversation this view showed last (kept across reloads), and remembering a new one. */
  currentConversation(): string | null;
  rememberConversation(id: string | null): void;
  openLocation(target: OpenTarget): Promise<void>;
  /** Asks the person, then opens the link outside the editor; false when they declined. */
  openLink(url: string): Promise<boolean>;
  openTrace(runId: string): Promise<void>;
  testConnection(): Promise<{ ok: boolean; message: string }>;
  /** Whether a build runs in this window now (the knowledge base says "building"). */
  building(): boolean;
  /** How far the person has come: a chat model to ask, sources added. */
  setup(): Promise<Setup>;
  /** Puts text on the system clipboard. */
  copy(text: string): Promise<void>;
  /** Asks the person for the folder a note goes to (null: they cancelled). */
  pickNoteFolder(): Promise<string | null>;
  /** After a note is written: say where, offer to open it, and to add its folder as a source. */
  noteSaved(file: string, folder: string): void;
  runCommand(command: ChatCommand): Promise<void>;
  /** A question was answered in this view (the walkthrough's last step). */
  answered(): void;
  log: Logger;
  t: T;
}

/**
 * One chat view's host side, over the application layer and the chat protocol: validates every message,
 * answers each request id once, posts nothing before `ready`, streams each question's events after the
 * reply that names its turn, records the conversation through the app, and aborts its runs on dispose.
 * Pure of `vscode`: tested in plain Node with a real DocQaApp and a fake model server.
 */
export class ChatSession {
  /** `init` is posted: until then everything else waits in `held` (init is always the first message). */
  private ready = false;
  private held: ChatHostToWebview[] = [];
  private readonly running = new Map<string, AbortController>();
  /** Each turn asked here, until it is stored with its end: keeping an answer waits for that. */
  private readonly storing = new Map<string, Promise<void>>();
  /** Requests the webview gave up on: their work is aborted where it can be. */
  private readonly requests = new Map<string, AbortController>();
  private disposed = false;

  constructor(
    private readonly app: DocQaApp,
    private readonly port: ChatPort,
  ) {}

  /** Every message from the webview, unvalidated. */
  receive(raw: unknown): void {
    const parsed = ChatWebviewToHost.safeParse(raw);
    if (!parsed.success) {
      this.port.log.warn(`chat: dropped an invalid message from the webview (${parsed.error.issues[0]?.message ?? 'invalid'})`);
      return;
    }
    // The zod union infers a looser request type than the protocol's own; the parse checked it.
    const m = parsed.data as Exclude<ChatWebviewToHost, { type: 'request' }> | ChatRequest;
    if (m.type === 'ready') void this.init();
    else if (m.type === 'cancel') this.requests.get(m.id)?.abort();
    else if (m.type === 'log') this.port.log[m.level](`chat webview: ${m.message}`);
    else if (m.method === 'ask') this.ask(m);
    else void this.request(m);
  }

  /** The knowledge base changed (a build finished, another window activated a snapshot). */
  async knowledgeBaseChanged(): Promise<void> {
    if (this.ready) this.post({ type: 'knowledge_base', knowledge_base: await this.knowledgeBase() });
  }

  /** A key was set or a source added: the first screen's guidance follows. */
  async setupChanged(): Promise<void> {
    if (this.ready) this.post({ type: 'setup', setup: await this.port.setup() });
  }

  dispose(): void {
    this.disposed = true;
    for (const ac of [...this.running.values(), ...this.requests.values()]) ac.abort();
  }

  private post(m: ChatHostToWebview): void {
    if (this.disposed) return;
    if (this.ready || m.type === 'init') this.port.post(m);
    else this.held.push(m);
  }

  private store() {
    return this.app.conversations(this.port.workspace());
  }

  private async knowledgeBase(): Promise<KnowledgeBase> {
    const manifest = await this.app.activeSnapshot().catch(() => null);
    return knowledgeBaseOf(manifest, this.port.building());
  }

  private async init(): Promise<void> {
    // A reload: the new page says ready again, and gets a fresh init before anything else.
    this.ready = false;
    const store = this.store();
    // Whatever fails here, the view gets its init (an empty history is logged, not a blank panel).
    const [listing, knowledge_base, setup] = await Promise.all([
      store.list().catch((err: unknown) => {
        this.port.log.warn(`chat: the history could not be read: ${errorMessage(err)}`);
        return { conversations: [] };
      }),
      this.knowledgeBase(),
      this.port.setup().catch(() => undefined),
    ]);
    const current = this.port.currentConversation();
    const conversation = current && listing.conversations.some((c) => c.id === current) ? await store.get(current).catch(() => null) : null;
    this.post({ type: 'init', ui_lang: this.port.uiLang(), conversation, conversations: listing.conversations, knowledge_base, ...(setup ? { setup } : {}) });
    this.ready = true;
    const held = this.held;
    this.held = [];
    for (const m of held) this.port.post(m);
  }

  private async request(r: ChatRequest): Promise<void> {
    const ac = new AbortController();
    this.requests.set(r.id, ac);
    try {
      const value = await this.answer(r, ac.signal);
      if (!ac.signal.aborted) this.post(replyOk(r.method, r.id, value as never));
    } catch (err) {
      if (ac.signal.aborted) return;
      const code = err instanceof DocQaError ? err.code : 'internal';
      if (code === 'internal') this.port.log.error(`chat ${r.method}: ${errorMessage(err)}`);
      this.post(replyError(r.id, code, errorMessage(err)));
    } finally {
      this.requests.delete(r.id);
    }
  }

  private answer(r: ChatRequest, signal: AbortSignal): Promise<unknown> {
    const handlers: { [M in Exclude<ChatMethod, 'ask'>]: (p: ChatParams<M>) => Promise<ChatResult<M>> } = {
      stop: async (p) => {
        const ac = this.running.get(p.turn_id);
        ac?.abort();
        return { stopped: ac !== undefined };
      },
      new_chat: async () => {
        this.port.rememberConversation(null);
        return {};
      },
      list_conversations: async () => (await this.store().list()).conversations,
      open_conversation: async (p) => {
        const c = await this.store().get(p.id);
        this.port.rememberConversation(c.id);
        return c;
      },
      delete_conversation: async (p) => {
        await this.store().delete(p.id);
        if (this.port.currentConversation() === p.id) this.port.rememberConversation(null);
        void this.postConversations();
        return { deleted: true };
      },
      block_preview: async (p) => {
        const b = await this.app.block(p);
        return b.found ? { found: true, doc_title: b.doc_title, section_path: b.section_path, text: b.text, file_exists: b.file_exists } : { found: false, doc_title: '', section_path: '', text: b.message, file_exists: false };
      },
      open_citation: (p) => this.openCitation(p),
      open_link: async (p) => ((await this.port.openLink(p.url)) ? { opened: true } : { opened: false, message: this.port.t('The link was not opened.') }),
      open_trace: async (p) => {
        await this.port.openTrace(p.run_id);
        return { opened: true };
      },
      test_connection: () => this.port.testConnection(),
      scope_targets: () => this.app.scopeTargets(),
      starting_questions: (p) => this.app.startingQuestions(p.lang),
      copy_markdown: async (p) => {
        await this.stored(p.conversation_id, p.turn_id);
        const note = await this.app.answerMarkdown({ workspace: this.port.workspace(), ...p, lang: this.port.uiLang(), linkBase: null });
        await this.port.copy(note.markdown);
        return { copied: true };
      },
      save_note: async (p) => {
        await this.stored(p.conversation_id, p.turn_id);
        const folder = await this.port.pickNoteFolder();
        if (!folder) return { saved: false, message: this.port.t('No folder was picked; nothing was saved.') };
        const file = await this.app.saveNote({ workspace: this.port.workspace(), ...p, lang: this.port.uiLang(), folder });
        this.port.noteSaved(file, folder);
        return { saved: true, file };
      },
      run_command: async (p) => {
        await this.port.runCommand(p.command);
        return {};
      },
    };
    signal.throwIfAborted();
    return (handlers[r.method as Exclude<ChatMethod, 'ask'>] as (p: unknown) => Promise<unknown>)(r.params);
  }

  /** Waits until a turn asked in this view (every turn of the conversation, for null) is stored with its end. */
  private async stored(conversationId: string, turnId: string | null): Promise<void> {
    await Promise.all([...this.storing].filter(([k]) => (turnId === null ? k.startsWith(`${conversationId}/`) : k === `${conversationId}/${turnId}`)).map(([, p]) => p));
  }

  private async openCitation(p: ChatParams<'open_citation'>): Promise<ChatResult<'open_citation'>> {
    const b = await this.app.block(p);
    if (!b.found) return { opened: false, message: b.message };
    if (!b.file_exists) return { opened: false, message: this.port.t('The cited file {0} no longer exists.', b.path) };
    await this.port.openLocation({ path: b.path, location: b.location, text: b.text, title: b.doc_title });
    return { opened: true };
  }

  /**
   * Replies with the ids as soon as the question is recorded — in the same callback, so the reply is
   * posted before any of the turn's events — then streams the run's events. A question refused before
   * it is recorded (empty, too long) is the reply's error; one that breaks off later is a `turn_error`.
   */
  private ask(r: Extract<ChatRequest, { method: 'ask' }>): void {
    const p = r.params;
    const ac = new AbortController();
    let ids: { conversation_id: string; turn_id: string } | null = null;
    let storedKey: string | null = null;
    const run = this.app
      .askInConversation(
        { workspace: this.port.workspace(), conversation_id: p.conversation_id, question: p.question, lang: p.lang, scope: p.scope },
        {
          signal: ac.signal,
          onEvent: (e) => {
            if (e.type === 'conversation_turn') {
              ids = { conversation_id: e.conversation_id, turn_id: e.turn_id };
              this.running.set(e.turn_id, ac);
              storedKey = `${e.conversation_id}/${e.turn_id}`;
              this.storing.set(storedKey, run.then(() => undefined, () => undefined));
              this.port.rememberConversation(e.conversation_id);
              this.post(replyOk('ask', r.id, ids));
            } else if (ids) {
              if (e.type === 'release') this.port.answered();
              this.post({ type: 'ask_event', ...ids, event: e } satisfies ChatEvent);
            }
          },
        },
      )
      .then(
        () => undefined,
        (err: unknown) => {
          const code = err instanceof DocQaError ? err.code : 'internal';
          if (!ids) return this.post(replyError(r.id, code, errorMessage(err)));
          this.post({ type: 'turn_error', ...ids, code, message: errorMessage(err) });
        },
      )
      .finally(() => {
        const at = ids as { conversation_id: string; turn_id: string } | null;
        if (!at) return;
        this.running.delete(at.turn_id);
        void this.postConversation(at.conversation_id);
      });
    void run.finally(() => {
      if (storedKey) this.storing.delete(storedKey);
    });
  }

  private async postConversation(id: string): Promise<void> {
    const c = await this.store().get(id).catch(() => null);
    if (c) this.post({ type: 'conversation_changed', conversation: c });
    await this.postConversations();
  }

  private async postConversations(): Promise<void> {
    const listing = await this.store().list().catch(() => null);
    if (listing) this.post({ type: 'conversations', conversations: listing.conversations });
  }
}
