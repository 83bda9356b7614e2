import type { AskEvent } from '../../src/shared/ask-event';
import { ChatClient, ChatRequestError } from '../../src/shared/chat-client';
import type { QuestionScope } from '../../src/shared/question-scope';
import type { BlockTarget, ChatCommand, ChatEvent, ChatResult, ChatWebviewToHost, UiLang } from '../../src/shared/chat-protocol';
import { type ChatState, ChatStore, showConversation, updateTurn } from './chat-store';
import { stringsFor } from './strings';
import { applyEvent, failTurn, newTurn } from './turn-state';

export type Preview = ChatResult<'block_preview'>;

/**
 * What the view can do, over the protocol: each user action is one request, each host event one state
 * change. Events of a turn that arrive before the reply to its `ask` (the host should not, but a reply
 * is a message like any other) wait until the reply names the turn.
 */
export class ChatController {
  readonly store = new ChatStore();
  readonly client: ChatClient;
  private localIds = 0;
  private pendingAsks = 0;
  private readonly early = new Map<string, AskEvent[]>();
  private readonly previews = new Map<string, Promise<Preview>>();

  constructor(post: (m: ChatWebviewToHost) => void, timeoutScale?: number) {
    this.client = new ChatClient({ post, onEvent: (e) => this.onEvent(e), timeoutScale });
  }

  get strings() {
    return stringsFor(this.store.state.lang);
  }

  private onEvent(e: ChatEvent): void {
    const st = this.store;
    switch (e.type) {
      case 'init':
        st.update((s) => {
          const base = { ...s, ready: true, lang: e.ui_lang, kb: e.knowledge_base, setup: e.setup ?? null, conversations: e.conversations, conversationId: null, turns: [] };
          return e.conversation ? showConversation(base, e.conversation) : base;
        });
        return;
      case 'ask_event': {
        const s = st.state;
        if (!s.turns.some((t) => t.turn.turn_id === e.turn_id)) {
          if (this.pendingAsks > 0) this.early.set(e.turn_id, [...(this.early.get(e.turn_id) ?? []), e.event]);
          return;
        }
        st.update((x) => this.withEvent(x, e.turn_id, e.event));
        return;
      }
      case 'turn_error':
        st.update((s) => ({ ...updateTurn(s, e.turn_id, (t) => failTurn(t, e.code, e.message)), announce: `${this.strings.turnError}: ${e.message}` }));
        return;
      case 'conversation_changed':
        st.update((s) => (s.conversationId === e.conversation.id ? showConversation(s, e.conversation) : s));
        return;
      case 'conversations':
        st.update((s) => ({ ...s, conversations: e.conversations }));
        return;
      case 'knowledge_base':
        st.update((s) => ({ ...s, kb: e.knowledge_base }));
        return;
      case 'setup':
        st.update((s) => ({ ...s, setup: e.setup }));
        return;
      case 'ui_lang':
        st.update((s) => ({ ...s, lang: e.ui_lang }));
        return;
    }
  }

  private withEvent(s: ChatState, turnId: string, ev: AskEvent): ChatState {
    const next = updateTurn(s, turnId, (t) => applyEvent(t, ev, Date.now()));
    if (ev.type === 'release') return { ...next, announce: this.strings.announceDone(ev.result.release.status) };
    return next;
  }

  async ask(question: string, lang: UiLang | null, scope: QuestionScope | null = null): Promise<void> {
    const q = question.trim();
    if (!q || this.running()) return;
    const localId = `local-${++this.localIds}`;
    const guess: UiLang = lang ?? (/[\u3400-\u9fff]/u.test(q) ? 'zh' : 'en');
    this.store.update((s) => ({ ...s, turns: [...s.turns, newTurn(localId, q, guess, Date.now())], announce: this.strings.announceRunning, notice: null }));
    this.pendingAsks++;
    try {
      const r = await this.client.request('ask', { conversation_id: this.store.state.conversationId, question: q, ...(lang ? { lang } : {}), ...(scope ? { scope } : {}) });
      this.store.update((s) => ({ ...updateTurn(s, localId, (t) => ({ ...t, turn: { ...t.turn, turn_id: r.turn_id } })), conversationId: r.conversation_id }));
      const early = this.early.get(r.turn_id) ?? [];
      this.early.delete(r.turn_id);
      for (const ev of early) this.store.update((s) => this.withEvent(s, r.turn_id, ev));
    } catch (e) {
      const err = e instanceof ChatRequestError ? e : new ChatRequestError('error', String(e));
      this.store.update((s) => ({ ...updateTurn(s, localId, (t) => failTurn(t, err.code, err.message)), announce: `${this.strings.turnError}: ${err.message}` }));
    } finally {
      this.pendingAsks--;
    }
  }

  running() {
    return this.store.state.turns.find((t) => t.turn.state === 'running') ?? null;
  }

  async stop(): Promise<void> {
    const t = this.running();
    if (!t || t.turn.turn_id.startsWith('local-')) return;
    const id = t.turn.turn_id;
    this.store.update((s) => updateTurn(s, id, (x) => ({ ...x, stopping: true })));
    await this.guard(this.client.request('stop', { turn_id: id }));
  }

  async newChat(): Promise<void> {
    if (this.running()) await this.stop();
    this.store.update((s) => ({ ...s, conversationId: null, turns: [], notice: null }));
    await this.guard(this.client.request('new_chat', {}));
  }

  async openConversation(id: string): Promise<void> {
    const c = await this.guard(this.client.request('open_conversation', { id }));
    if (c) this.store.update((s) => showConversation({ ...s, conversationId: null, turns: [], notice: null }, c));
  }

  async deleteConversation(id: string): Promise<void> {
    const r = await this.guard(this.client.request('delete_conversation', { id }));
    if (!r?.deleted) return;
    this.store.update((s) => ({ ...s, conversations: s.conversations.filter((c) => c.id !== id), ...(s.conversationId === id ? { conversationId: null, turns: [] } : {}) }));
  }

  preview(target: BlockTarget): Promise<Preview> {
    const key = `${target.snapshot_id ?? ''}/${target.doc_id}#${target.block_id}`;
    let p = this.previews.get(key);
    if (!p) {
      p = this.client.request('block_preview', target);
      // A failed preview is asked again next time, not remembered.
      p.catch(() => this.previews.delete(key));
      this.previews.set(key, p);
    }
    return p;
  }

  async openCitation(target: BlockTarget): Promise<void> {
    const r = await this.guard(this.client.request('open_citation', target));
    if (r && !r.opened) this.notify(`${this.strings.openFailed}: ${r.message ?? ''}`);
  }

  async openLink(url: string): Promise<void> {
    await this.guard(this.client.request('open_link', { url }));
  }

  async openTrace(run_id: string): Promise<void> {
    const r = await this.guard(this.client.request('open_trace', { run_id }));
    if (r && !r.opened && r.message) this.notify(r.message);
  }

  async testConnection(): Promise<string | null> {
    const r = await this.guard(this.client.request('test_connection', {}));
    return r ? r.message : null;
  }

  /** What `@` offers, read once per snapshot (a new snapshot is read again). */
  async targets(): Promise<void> {
    const s = this.store.state;
    if (s.targets && s.targets.snapshot_id === (s.kb?.snapshot_id ?? null)) return;
    const t = await this.guard(this.client.request('scope_targets', {}));
    if (t) this.store.update((x) => ({ ...x, targets: t }));
  }

  /** Questions to start with, once per snapshot and language. */
  async startingQuestions(): Promise<void> {
    const s = this.store.state;
    if (s.starting && s.starting.snapshot_id === (s.kb?.snapshot_id ?? null) && s.starting.lang === s.lang) return;
    const lang = s.lang;
    const r = await this.guard(this.client.request('starting_questions', { lang }));
    if (r) this.store.update((x) => ({ ...x, starting: { snapshot_id: r.snapshot_id, lang, questions: r.questions } }));
  }

  /** An answer (turn) or the whole conversation (null) as Markdown on the clipboard. */
  async copyMarkdown(turnId: string | null): Promise<boolean> {
    const id = this.store.state.conversationId;
    if (!id) return false;
    const r = await this.guard(this.client.request('copy_markdown', { conversation_id: id, turn_id: turnId }));
    if (r?.copied) this.store.update((s) => ({ ...s, announce: this.strings.copied }));
    return Boolean(r?.copied);
  }

  /** An answer (turn) or the whole conversation (null) saved as a note where the person says. */
  async saveNote(turnId: string | null): Promise<void> {
    const id = this.store.state.conversationId;
    if (!id) return;
    const r = await this.guard(this.client.request('save_note', { conversation_id: id, turn_id: turnId }));
    if (r?.saved) this.store.update((s) => ({ ...s, announce: this.strings.noteSaved }));
    else if (r?.message) this.notify(r.message);
  }

  async runCommand(command: ChatCommand): Promise<void> {
    await this.guard(this.client.request('run_command', { command }));
  }

  notify(message: string): void {
    this.store.update((s) => ({ ...s, notice: message, announce: message }));
  }

  /** A failed request becomes a notice in the view (and the host hears of it as log), never a throw. */
  private async guard<T>(p: Promise<T>): Promise<T | null> {
    try {
      return await p;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.client.log('warn', `request failed: ${message}`);
      this.notify(this.strings.error(message));
      return null;
    }
  }
}
