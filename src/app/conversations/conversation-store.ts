import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type DataDir, withStoreLock } from '../../common/data-dir';
import { DocQaError, StoreError, UsageError, errorMessage } from '../../common/errors';
import { readVersioned, writeVersioned } from '../../common/json-file';
import { processAlive } from '../../common/process-alive';
import { stampedId } from '../../trace/trace-store';
import { type Clock, SYSTEM_CLOCK } from '../settings';
import { StoredConversation } from './conversation-migration';
import { CONVERSATION_FORMAT_VERSION, Conversation, type ConversationListing, type ConversationSummary, type ConversationTurn, type UnreadableConversation } from '../../shared/conversation';
import { defaultTitle, interruptDead } from './conversation-turns';
import { checkWorkspaceKey } from './workspace-key';

const ID = /^c\d{8}T\d{9}Z-[0-9a-f]{6}$/;

/** A turn as it starts: its question and language (the store adds the id, the time and the owner). */
export interface NewTurn {
  question: string;
  lang: 'zh' | 'en';
}

/** What a run changes on its turn; leaving `running` drops the owner. */
export type TurnPatch = Partial<Pick<ConversationTurn, 'state' | 'run_id' | 'snapshot_id' | 'prompt_bundle' | 'steps' | 'result' | 'error' | 'scope'>>;

/**
 * One workspace's chat history: `<data>/conversations/<workspace-key>/<id>.json`, one versioned file per
 * conversation, written atomically and durably. Every change is a read-modify-write under that
 * conversation's lock, so two windows (or a window and the CLI) appending turns never lose one. A file
 * that cannot be read is reported (listed as unreadable, refused by get) and never rewritten; only an
 * explicit delete removes it.
 */
export class ConversationStore {
  readonly workspace: string;

  constructor(
    private readonly dir: DataDir,
    workspace: string,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.workspace = checkWorkspaceKey(workspace);
  }

  get folder(): string {
    return path.join(this.dir.conversationsDir, this.workspace);
  }

  private file(id: string): string {
    if (!ID.test(id)) throw new UsageError(`"${id}" is not a conversation id (e.g. c20261201T134802123Z-3f9a1c)`);
    return path.join(this.folder, `${id}.json`);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** The readable conversations, newest first (updated_at, then id: deterministic), and the unreadable ones. */
  async list(): Promise<ConversationListing> {
    let names: string[];
    try {
      names = (await fs.readdir(this.folder)).filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -5))).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { conversations: [], unreadable: [] };
      throw new StoreError('store_io', `cannot list ${this.folder}: ${errorMessage(err)}`, { cause: err });
    }
    const conversations: ConversationSummary[] = [];
    const unreadable: UnreadableConversation[] = [];
    for (const name of names) {
      const id = name.slice(0, -5);
      const file = path.join(this.folder, name);
      try {
        const c = await this.read(id);
        if (c) conversations.push({ id: c.id, title: c.title, updated_at: c.updated_at, turns: c.turns.length });
      } catch (err) {
        unreadable.push({ id, file, code: err instanceof DocQaError ? err.code : 'store_io', message: errorMessage(err) });
      }
    }
    conversations.sort((a, b) => (a.updated_at !== b.updated_at ? (a.updated_at < b.updated_at ? 1 : -1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { conversations, unreadable };
  }

  private async read(id: string): Promise<Conversation | null> {
    const file = this.file(id);
    const c = await readVersioned(file, CONVERSATION_FORMAT_VERSION, StoredConversation);
    if (c && (c.id !== id || c.workspace !== this.workspace)) throw new StoreError('store_corrupt', `${file} holds conversation ${c.id} of workspace ${c.workspace}, not ${id} of ${this.workspace}`);
    return c;
  }

  private async must(id: string): Promise<Conversation> {
    const c = await this.read(id);
    if (!c) throw new DocQaError('conversation_not_found', `no conversation ${id} in this workspace (see \`docqa chat list\`)`);
    return c;
  }

  /** Read-modify-write under the conversation's lock; nothing is written when `fn` throws. */
  private async change<T>(id: string, fn: (c: Conversation) => { conversation: Conversation; value: T }): Promise<T> {
    const file = this.file(id);
    await fs.mkdir(this.folder, { recursive: true });
    return withStoreLock(
      this.dir,
      async (held) => {
        const { conversation, value } = fn(await this.must(id));
        held.assertHeld();
        await writeVersioned(file, valid(conversation));
        return value;
      },
      path.relative(this.dir.root, path.join(this.folder, id)),
    );
  }

  /** A conversation, with turns whose process died marked interrupted (and written so, for every window). */
  async get(id: string): Promise<Conversation> {
    const host = os.hostname();
    const c = await this.must(id);
    if (!interruptDead(c, host, processAlive).changed) return c;
    return this.change(id, (now) => {
      const r = interruptDead(now, host, processAlive);
      return { conversation: r.conversation, value: r.conversation };
    });
  }

  /** A new, empty conversation (its title, unless given, becomes the first question). */
  async create(o: { title?: string } = {}): Promise<Conversation> {
    const at = this.clock.now();
    const c: Conversation = { formatVersion: CONVERSATION_FORMAT_VERSION, id: stampedId('c', at), workspace: this.workspace, title: o.title === undefined ? '' : checkTitle(o.title), created_at: at.toISOString(), updated_at: at.toISOString(), turns: [] };
    await fs.mkdir(this.folder, { recursive: true });
    // A fresh id: no other process can be writing this file, so no lock is needed to create it.
    await writeVersioned(this.file(c.id), valid(c));
    return c;
  }

  async rename(id: string, title: string): Promise<Conversation> {
    const t = checkTitle(title);
    return this.change(id, (c) => {
      const next = { ...c, title: t, updated_at: this.now() };
      return { conversation: next, value: next };
    });
  }

  /** Removes a conversation's file, readable or not (the person asked for it). */
  async delete(id: string): Promise<void> {
    const file = this.file(id);
    await fs.mkdir(this.folder, { recursive: true });
    await withStoreLock(
      this.dir,
      async () => {
        try {
          await fs.rm(file);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new DocQaError('conversation_not_found', `no conversation ${id} in this workspace (see \`docqa chat list\`)`);
          throw new StoreError('store_io', `cannot delete ${file}: ${errorMessage(err)}`, { cause: err });
        }
      },
      path.relative(this.dir.root, path.join(this.folder, id)),
    );
  }

  /** Appends a running turn owned by this process; the first question names an untitled conversation. */
  async appendTurn(id: string, t: NewTurn): Promise<ConversationTurn> {
    return this.change(id, (c) => {
      const asked_at = this.now();
      const turn: ConversationTurn = { turn_id: `t${c.turns.length + 1}`, question: t.question, lang: t.lang, asked_at, state: 'running', run_id: null, snapshot_id: null, prompt_bundle: null, steps: [], result: null, error: null, owner: { pid: process.pid, host: os.hostname() } };
      return { conversation: { ...c, title: c.title || defaultTitle(t.question), updated_at: asked_at, turns: [...c.turns, turn] }, value: turn };
    });
  }

  async updateTurn(id: string, turnId: string, patch: TurnPatch): Promise<ConversationTurn> {
    return this.change(id, (c) => {
      const old = c.turns.find((t) => t.turn_id === turnId);
      if (!old) throw new DocQaError('conversation_not_found', `conversation ${id} has no turn ${turnId}`);
      const merged: ConversationTurn = { ...old, ...patch };
      const { owner: _done, ...finished } = merged;
      const turn: ConversationTurn = merged.state === 'running' ? merged : finished;
      return { conversation: { ...c, updated_at: this.now(), turns: c.turns.map((x) => (x.turn_id === turnId ? turn : x)) }, value: turn };
    });
  }
}

/** What is written is what a reader accepts: a value that fails the schema is refused before any byte changes. */
function valid(c: Conversation): Conversation {
  const r = Conversation.safeParse(c);
  if (!r.success) throw new DocQaError('internal', `conversation ${c.id} would not match its schema at ${r.error.issues[0]?.path.join('.') ?? '(root)'}: ${r.error.issues[0]?.message ?? 'invalid'}; nothing was written`);
  return r.data;
}

function checkTitle(title: string): string {
  const t = title.replace(/\s+/g, ' ').trim();
  if (!t) throw new UsageError('a conversation title cannot be empty');
  return t;
}
