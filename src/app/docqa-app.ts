import { DataDir, withStoreLock } from '../common/data-dir';
import { readLayout } from '../common/data-layout';
import { DocQaError } from '../common/errors';
import { Redactor } from '../common/redact';
import { diffEvals } from '../eval/eval-diff';
import { listEvals, loadEval } from '../eval/eval-store';
import { freezeBundle, listBundles, newBundle, promoteBundle, rollbackBundle } from '../harness/prompt-store';
import { ingestSources } from '../index/ingest/ingest-sources';
import { type AddSourceOptions, addSources, loadSources, removeSource } from '../index/sources/sources';
import { SnapshotLru } from '../index/store/snapshot-lru';
import type { EgressPlan } from '../index/store/egress-consent';
import { type LoadedSnapshot, activateSnapshot, deleteSnapshot, listSnapshots, readActiveId, readManifest } from '../index/store/snapshot-store';
import { runTool } from '../tools/registry';
import { openSnapshotHandle } from '../tools/snapshot-handle';
import { type ToolName, type ToolPayload, errorPayload } from '../tools/tool';
import { listTraces } from '../trace/trace-store';
import { type AskEvent, type AskOutcome, type AskRequest, ask } from './ask';
import { type BlockLookup, type BlockRequest, lookupBlock } from './block-lookup';
import { type ConversationAskEvent, type ConversationAskOutcome, type ConversationAskRequest, askInConversation } from './conversations/ask-in-conversation';
import { ConversationStore } from './conversations/conversation-store';
import { type BuildEvent, BuildJob, leftBuild } from './build-job';
import { testConnection } from './connection-test';
import { embeddingLocal, rebuildNote } from './local-models/connection-local';
import { modelListing } from './local-models/model-list';
import { findLocalServer } from './local-models/local-server';
import { isLoopback } from '../common/provider-failure';
import { endpointFamily } from '../index/embed/embedding-client';
import { type EvalOptions, evaluateGoldset } from './evaluate';
import { inspectFile } from './inspect';
import { queryEmbedding } from './query-embedding';
import { type ScopeTargets } from '../shared/question-scope';
import { scopeTargets } from './question-scope';
import { type StartingQuestion, startingQuestions } from './starting-questions';
import { citedSpots, noteOf, writeNote } from './notes/save-note';
import { type AppSettings, type Clock, CLI_WORDS, type HostWords, type Logger, NULL_LOGGER, SYSTEM_CLOCK } from './settings';
import { exportTrace, promptOfTurn, replayTrace, showTrace } from './traces';
import { listBackups } from './upgrade/data-backup';
import { type OpenOutcome, openDataDir } from './upgrade/open-data-dir';
import { envNameOf } from './settings-table/names';
import { restoreBackup } from './upgrade/restore-backup';
import type { AppOptions, AskCall } from './app-options';

/**
 * One DocQA data directory, for a host (the CLI, the extension): sources, background builds, snapshots,
 * questions with their traces, prompt bundles, evaluations and connection tests, over the core. Keys are
 * asked for at request time; the snapshot a request reads is pinned for the request.
 */
export class DocQaApp {
  readonly dir: DataDir;
  private settingsNow: AppSettings;
  private readonly lru: SnapshotLru;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly words: HostWords;
  private build: BuildJob | null = null;
  private opening: Promise<OpenOutcome> | null = null;

  constructor(private readonly o: AppOptions) {
    this.dir = new DataDir(o.dataDir);
    this.settingsNow = o.settings;
    this.lru = new SnapshotLru(this.dir, 2);
    this.log = o.logger ?? NULL_LOGGER;
    this.clock = o.clock ?? SYSTEM_CLOCK;
    this.words = o.words ?? CLI_WORDS;
  }

  get settings(): AppSettings {
    return this.settingsNow;
  }

  /** New settings take effect from the next request (a running one keeps what it started with). */
  updateSettings(settings: AppSettings): void {
    this.settingsNow = settings;
  }

  private askContext() {
    return { dir: this.dir, lru: this.lru, settings: this.settingsNow, keys: this.o.keys, words: this.words, appVersion: this.o.appVersion, questionLimitName: this.o.questionLimitName ?? envNameOf('run.max_question_chars'), model: this.o.model };
  }

  /**
   * Brings the data directory to this DocQA's layout once per app (a newer layout is refused, an older
   * one migrated copy-on-write after a backup: src/app/upgrade); every request that reads or writes the
   * directory waits for it. A failure is not remembered: the next request tries again.
   */
  open(): Promise<OpenOutcome> {
    this.opening ??= openDataDir(this.dir, { appVersion: this.o.appVersion, now: () => this.clock.now() }).then(
      (outcome) => {
        if (outcome.kind === 'migrated') this.log.info(`data directory ${this.dir.root} upgraded from layout ${outcome.from} to ${outcome.to}${outcome.backup ? `; backup ${outcome.backup.id}` : ''}`);
        return outcome;
      },
      (err: unknown) => {
        this.opening = null;
        throw err;
      },
    );
    return this.opening;
  }
  private async opened<T>(fn: () => Promise<T>): Promise<T> {
    await this.open();
    return fn();
  }

  // Data directory: layout, backups, data rollback
  async dataStatus() {
    await this.open();
    return { root: this.dir.root, ...(await readLayout(this.dir)), backups: await listBackups(this.dir) };
  }
  /** Data rollback: the directory as it was before the migration that made the backup (see restore-backup). */
  restoreBackup(id: string) {
    return restoreBackup(this.dir, id);
  }

  // Sources
  addSources(paths: readonly string[], opts?: AddSourceOptions) {
    return this.opened(() => addSources(this.dir, paths, opts));
  }
  removeSource(ref: string) {
    return this.opened(() => removeSource(this.dir, ref));
  }
  listSources() {
    return this.opened(() => loadSources(this.dir));
  }
  /** Reads every source file and assigns stable doc_ids (the registry is written under the build lock, as builds write it). */
  scanSources(signal?: AbortSignal) {
    return this.opened(() => withStoreLock(this.dir, () => ingestSources(this.dir, this.settingsNow.ingest, { signal, pool: this.o.pool }), 'build'));
  }
  inspect(file: string, signal?: AbortSignal) {
    return inspectFile(this.dir, file, this.settingsNow.ingest, this.words.addSourceCommand, signal);
  }

  // Builds
  /** Starts a build in the background (one per app at a time; another process holding the data directory's build lock makes this one wait). */
  /**
   * `confirmEgress` is asked before a source's text goes to an embedding host for the first time (files,
   * blocks, tokens, host, what was skipped); every host must decide how it asks.
   */
  async startBuild(o: { onEvent?: (e: BuildEvent) => void; paused?: boolean; confirmEgress: (plan: EgressPlan) => Promise<boolean> }): Promise<BuildJob> {
    if (this.build && (this.build.status.state === 'running' || this.build.status.state === 'paused')) throw new DocQaError('build_running', 'a build is already running in this window; pause, resume or cancel it');
    await this.open();
    // Refuses a build-state.json a newer DocQA wrote: the build would replace it, then remove it.
    await leftBuild(this.dir);
    const e = this.settingsNow.embedding;
    // Only a recognised local model server on a loopback address is "on this machine" (a loopback port may tunnel to a cloud).
    const localEmbedding = e.provider !== 'none' && isLoopback(e.base_url) && (await findLocalServer(e.base_url).catch(() => null)) !== null;
    const job = new BuildJob({ dir: this.dir, settings: this.settingsNow, embeddingKey: await this.o.keys.embedding(), words: this.words, clock: this.clock, pool: this.o.pool, paused: o.paused, onEvent: o.onEvent, confirmEgress: o.confirmEgress, localEmbedding, rebuildNote: await this.embeddingChange() });
    this.build = job;
    this.log.info(`build ${job.id} started`);
    job.done.then(
      (r) => this.log.info(r ? `build ${job.id}: snapshot ${r.manifest.id} ${r.manifest.state}${r.activated ? ' (active)' : ' (not activated)'}` : `build ${job.id} cancelled`),
      (err: unknown) => this.log.error(`build ${job.id} failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    return job;
  }
  currentBuild(): BuildJob | null {
    return this.build;
  }
  /** A build a previous process left (interrupted, paused) or another one runs now. */
  leftBuild() {
    return this.opened(() => leftBuild(this.dir));
  }

  // Snapshots
  listSnapshots() {
    return this.opened(() => listSnapshots(this.dir));
  }
  activeSnapshotId() {
    return this.opened(() => readActiveId(this.dir));
  }
  /** The active snapshot's manifest (one file read), or null when none is active. */
  async activeSnapshot() {
    await this.open();
    const id = await readActiveId(this.dir);
    return id ? readManifest(this.dir, id) : null;
  }
  activateSnapshot(id: string) {
    return this.opened(() => activateSnapshot(this.dir, id));
  }
  deleteSnapshot(id: string) {
    return this.opened(() => deleteSnapshot(this.dir, id));
  }

  /** The context of one question: the model the call names, else the host's (when its settings choose one). */
  private async questionContext(o: AskCall<never>) {
    const hostModel = o.hostModel ?? (this.o.hostModel ? await this.o.hostModel(o.signal) : null);
    return { ...this.askContext(), hostModel };
  }

  // Questions
  ask(req: AskRequest, o: AskCall<AskEvent> = {}): Promise<AskOutcome> {
    return this.opened(async () => ask(await this.questionContext(o), req, o));
  }

  /** The chat history of one workspace (a key from workspaceKey of the host's folders). */
  conversations(workspace: string): ConversationStore {
    return new ConversationStore(this.dir, workspace, this.clock);
  }
  /** The same, once the data directory is open (a host that has not made any other request yet). */
  async openConversations(workspace: string): Promise<ConversationStore> {
    await this.open();
    return this.conversations(workspace);
  }

  /**
   * A question in a conversation (`conversation_id` null starts one): recorded as a running turn before
   * the run (the first event, `conversation_turn`, carries its ids), asked with the earlier turns'
   * questions and answers as context, and finished in the history with its result or error.
   */
  askInConversation(req: ConversationAskRequest, o: AskCall<ConversationAskEvent> = {}): Promise<ConversationAskOutcome> {
    return this.opened(async () => askInConversation(await this.questionContext(o), this.conversations(req.workspace), req, o));
  }

  /** A cited block for a chip: from the answer's snapshot while it exists, else the active one (the reply says which). */
  block(req: BlockRequest): Promise<BlockLookup> {
    return this.opened(() => lookupBlock(this.dir, this.lru, req));
  }

  /** What the chat's `@` offers: the active snapshot's sources and documents (empty lists when none is active). */
  scopeTargets(): Promise<ScopeTargets> {
    return this.withActive<ScopeTargets>((s) => scopeTargets(s), { snapshot_id: null, sources: [], documents: [] });
  }

  /** The active snapshot's doc_ids of these files (the chat's `#` attachments), in snapshot order. */
  documentsAt(paths: readonly string[]): Promise<string[]> {
    const wanted = new Set(paths);
    return this.withActive<string[]>((s) => s.documents.filter((d) => wanted.has(d.path)).map((d) => d.doc_id), []);
  }

  /** A few questions drawn from the active snapshot's documents and sections, in `lang`; the same for the same snapshot. */
  startingQuestions(lang: 'zh' | 'en', count?: number): Promise<{ snapshot_id: string | null; questions: StartingQuestion[] }> {
    return this.withActive<{ snapshot_id: string | null; questions: StartingQuestion[] }>((s) => ({ snapshot_id: s.manifest.id, questions: startingQuestions(s, lang, count) }), { snapshot_id: null, questions: [] });
  }

  /** `fn` over the active snapshot, pinned while it runs; `none` when no snapshot is active. */
  private async withActive<T>(fn: (s: LoadedSnapshot) => T, none: T): Promise<T> {
    await this.open();
    const handle = await openSnapshotHandle(this.dir, this.lru);
    if (!handle) return none;
    try {
      return fn(handle.snapshot);
    } finally {
      await handle.release();
    }
  }

  /**
   * An answer (`turn_id`) or a whole conversation (`turn_id` null) as Markdown with its citations as
   * links to the cited spots: relative to `linkBase` (the folder a note goes to), or file:// URLs.
   */
  async answerMarkdown(req: { workspace: string; conversation_id: string; turn_id: string | null; lang: 'zh' | 'en'; linkBase: string | null }) {
    await this.open();
    const conversation = await this.conversations(req.workspace).get(req.conversation_id);
    const spots = await citedSpots(conversation, req.turn_id, (r) => lookupBlock(this.dir, this.lru, r));
    const madeAt = this.clock.now().toISOString();
    return { ...noteOf({ conversation, turn_id: req.turn_id }, spots, { linkBase: req.linkBase, lang: req.lang, madeAt }), madeAt };
  }

  /** The same Markdown written into `folder` as a new note (never over a file); returns its path. */
  async saveNote(req: { workspace: string; conversation_id: string; turn_id: string | null; lang: 'zh' | 'en'; folder: string }): Promise<string> {
    const note = await this.answerMarkdown({ ...req, linkBase: req.folder });
    return writeNote(req.folder, note.title, note.madeAt, note.markdown);
  }

  /** One retrieval tool on the active (or given) snapshot, as the agent would call it; failures are payloads. */
  async runTool(name: ToolName, input: unknown, snapshotId?: string): Promise<ToolPayload> {
    await this.open();
    let handle;
    try {
      handle = await openSnapshotHandle(this.dir, this.lru, snapshotId);
    } catch (err) {
      return errorPayload('collection_unavailable', `snapshot ${snapshotId ?? '(active)'} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!handle) return errorPayload('collection_unavailable', `no snapshot is active; build one with ${this.words.buildCommand}`);
    try {
      const embedQuery = queryEmbedding(handle.snapshot, this.settingsNow, await this.o.keys.embedding(), this.words, false);
      return await runTool(name, input, { snapshot: handle.snapshot, embedQuery });
    } finally {
      await handle.release();
    }
  }

  // Traces
  listTraces() {
    return this.opened(() => listTraces(this.dir));
  }
  showTrace(runId: string) {
    return this.opened(() => showTrace(this.dir, runId));
  }
  promptOfTurn(runId: string, turn: number, traceFlagHint = '--trace full (or DOCQA_TRACE=full)') {
    return this.opened(() => promptOfTurn(this.dir, runId, turn, traceFlagHint));
  }
  async replayTrace(runId: string) {
    await this.open();
    return replayTrace({ dir: this.dir, lru: this.lru, settings: this.settingsNow, keys: this.o.keys, words: this.words }, runId);
  }
  async exportTrace(runId: string, url: string) {
    await this.open();
    return exportTrace(this.dir, runId, url, this.o.appVersion, new Redactor([await this.o.keys.chat(), await this.o.keys.embedding()]));
  }

  // Prompt bundles
  listPrompts() {
    return this.opened(() => listBundles(this.dir));
  }
  newPrompt(from: string, id?: string) {
    return this.opened(() => newBundle(this.dir, from, id));
  }
  freezePrompt(id: string) {
    return this.opened(() => freezeBundle(this.dir, id));
  }
  promotePrompt(id: string) {
    return this.opened(() => promoteBundle(this.dir, id));
  }
  rollbackPrompt() {
    return this.opened(() => rollbackBundle(this.dir));
  }

  // Evaluations
  evaluate(goldset: string, o: EvalOptions) {
    return this.opened(() => evaluateGoldset(this.askContext(), goldset, o));
  }
  listEvals() {
    return this.opened(() => listEvals(this.dir));
  }
  loadEval(id: string) {
    return this.opened(() => loadEval(this.dir, id));
  }
  async diffEvals(a: string, b: string) {
    await this.open();
    return diffEvals(await loadEval(this.dir, a), await loadEval(this.dir, b));
  }

  // Connections
  async testConnection(which: 'chat' | 'embedding', signal?: AbortSignal) {
    const key = which === 'chat' ? await this.o.keys.chat() : await this.o.keys.embedding();
    const active = which === 'embedding' ? ((await this.activeSnapshot().catch(() => null))?.embedding ?? null) : null;
    return testConnection(which, this.settingsNow, key, this.words, this.clock, signal, active);
  }

  /**
   * The models the chat (or embedding) endpoint offers, chat and embedding models apart. Keyword-only,
   * the embedding list comes from the chat endpoint (a local server usually serves both).
   */
  async listModels(which: 'chat' | 'embedding', signal?: AbortSignal) {
    const e = this.settingsNow.embedding;
    const base = which === 'embedding' && e.provider !== 'none' ? e.base_url : this.settingsNow.chat.base_url;
    const key = (which === 'embedding' && e.provider !== 'none' ? await this.o.keys.embedding() : await this.o.keys.chat()) ?? '';
    return modelListing(base, key, signal);
  }

  /**
   * Whether the configured embedding model makes the next build a rebuild of every block (another model
   * or vector size than the active snapshot's), in words, found out without sending any text (a local
   * server's model details); null when it does not.
   */
  async embeddingChange(signal?: AbortSignal): Promise<string | null> {
    const e = this.settingsNow.embedding;
    const active = await this.activeSnapshot().catch(() => null);
    if (e.provider === 'none' || !active) return null;
    const local = await embeddingLocal(e, this.settingsNow.ingest.chunking.max_tokens, signal).catch(() => null);
    return rebuildNote(active.embedding, e, endpointFamily(e.base_url), e.dimensions ?? local?.dims ?? null, active.stats.blocks);
  }

  /** Cancels a running build and waits for it; nothing else is held open. */
  async close(): Promise<void> {
    const job = this.build;
    if (job && (job.status.state === 'running' || job.status.state === 'paused')) {
      job.cancel();
      await job.done.catch(() => undefined);
    }
  }
}
