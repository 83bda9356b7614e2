import path from 'node:path';
import * as vscode from 'vscode';
import type { HostRegistry } from './lazy-registry';
import type { BuildEvent, BuildJob } from '../app/build-job';
import { DocQaApp } from '../app/docqa-app';
import type { AppSettings, HostWords, Logger } from '../app/settings';
import { Redactor } from '../common/redact';
import type { EgressPlan } from '../index/store/egress-consent';
import { showControls } from '../shared/inert-text';
import { ChatViews } from './chat-view';
import { isLoopback } from '../common/provider-failure';
import { findLocalServer } from '../app/local-models/local-server';
import { egressPrompt, localEgressWords } from './egress-model';
import { ocrOnWords } from './ocr-words';
import { pickModel } from './model-picker';
import { DisposableStore } from './disposable-store';
import { EditorTabs } from './editor-tabs';
import { openCitationCommand } from './citation-opener';
import { registerPdfFileEditor } from './pdf-file-editor';
import { registerPdfNoteLinks } from './pdf-note-links';
import { openPdfPageCommand } from './pdf-page-view';
import { SECRET_IDS, promptForKey, secretKeys } from './secret-keys';
import { vscodeKeyOf } from '../app/settings-table/names';
import { sourceWatchGlob } from './format-patterns';
import { RebuildScheduler } from './rebuild-scheduler';
import { type StatusInput, statusView } from './status-model';
import { TreeViews } from './tree-views';
import { ANSWERED, KEYWORD_ONLY_CHOSEN, WALKTHROUGH_ID, stepsDone, walkthroughContext } from './walkthrough';
import { EmbeddingChoice } from './embedding-choice';
import { VsCodeModels } from './lm-models';
import { ConnectionCheck } from './connection-check';
import { SourceCommands } from './source-commands';
import { registerChatIntegration } from './chat-integration';

/** How the extension names its settings and commands in messages. */
export const VSCODE_WORDS: HostWords = {
  settings: {
    chat: { key: 'DocQA: Set Chat API Key', base_url: vscodeKeyOf('chat.base_url'), model: vscodeKeyOf('chat.model') },
    embedding: { key: 'DocQA: Set Embedding API Key', base_url: vscodeKeyOf('embedding.base_url'), model: vscodeKeyOf('embedding.model') },
  },
  buildCommand: '“DocQA: Rebuild Index”',
  pickModelCommand: '“DocQA: Pick Chat Model”',
  keywordOnly: '“DocQA: Use Keyword-Only Search”',
  addSourceCommand: '“DocQA: Add Folder to Sources”',
};

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

/**
 * The extension as a host of the application layer: one DocQaApp over the data directory in the
 * extension's global storage, keys from SecretStorage (asked for at request time), settings from the
 * configuration, a log channel with keys redacted, background builds with progress and a status bar.
 */
export class DocQaExtension implements vscode.Disposable {
  readonly app: DocQaApp;
  private readonly store = new DisposableStore();
  private readonly log: vscode.LogOutputChannel;
  private readonly status: vscode.StatusBarItem;
  private build: BuildJob | null = null;
  private readonly trees: TreeViews;
  private readonly chat: ChatViews;
  private readonly tabs: EditorTabs;
  private readonly scheduler: RebuildScheduler;
  private readonly embeddings: EmbeddingChoice;
  private readonly models: VsCodeModels;
  private readonly connections: ConnectionCheck;
  private readonly sources: SourceCommands;
  private sourceWatchers: vscode.Disposable[] = [];
  private watchedSources = '';
  /** Walkthrough steps this window has marked done (see markStepsDone). */
  private readonly markedSteps = new Set<string>();
  /** The active snapshot as the status bar shows it, read on refresh (never on a build's progress events). */
  private active: StatusInput['snapshot'] = null;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readSettings: () => AppSettings,
    appVersion: string,
    private readonly registry: HostRegistry,
  ) {
    this.log = this.store.add(vscode.window.createOutputChannel('DocQA', { log: true }));
    this.status = this.store.add(vscode.window.createStatusBarItem('docqa.status', vscode.StatusBarAlignment.Left, 50));
    this.status.name = 'DocQA';
    this.status.command = 'docqa.showLog';
    this.status.show();
    this.models = new VsCodeModels(context);
    const appOptions = { settings: readSettings(), keys: secretKeys(context.secrets), logger: this.logger(), words: VSCODE_WORDS, appVersion, questionLimitName: vscodeKeyOf('run.max_question_chars'), hostModel: () => this.models.hostModel() };
    this.app = new DocQaApp({ dataDir: context.globalStorageUri.fsPath, ...appOptions });
    this.store.add(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('docqa')) return;
        this.app.updateSettings(readSettings());
        void this.refresh();
      }),
    );
    this.trees = this.store.add(new TreeViews(this.app, registry));
    this.embeddings = new EmbeddingChoice({ context, refresh: () => this.refresh(), rebuild: () => this.rebuild() });
    this.sources = new SourceCommands({ context, app: this.app, log: this.log, refresh: () => this.refresh(), rebuild: () => this.rebuild(), running: () => (this.buildRunning() ? this.build : null) });
    this.connections = new ConnectionCheck({ app: this.app, models: this.models, log: this.log, setKey: (which) => this.setKey(which), turnOnEmbeddings: () => this.embeddings.turnOn() });
    this.tabs = new EditorTabs({ context, app: this.app, store: this.store, log: this.log, appOptions, registry });
    // Edits in the sources rebuild the index incrementally, once a burst of changes has settled.
    this.scheduler = this.store.add(new RebuildScheduler(() => this.backgroundBuild(), 2000));
    this.store.add({ dispose: () => this.sourceWatchers.forEach((w) => w.dispose()) });
    this.chat = this.store.add(
      new ChatViews(
        {
          context,
          app: this.app,
          log: this.logger(),
          building: () => this.buildRunning(),
          testConnection: () => this.connections.words(),
          setup: async () => ({ chat_ready: Boolean(await context.secrets.get(SECRET_IDS.chat)) || isLoopback(this.app.settings.chat.base_url) || this.models.provider().value === 'vscode', sources: (await this.app.listSources().catch(() => [])).length }),
          answered: () => {
            if (context.globalState.get<boolean>(ANSWERED)) return;
            void context.globalState.update(ANSWERED, true).then(() => this.refresh());
          },
          addSource: (folder) => this.sources.add([vscode.Uri.file(folder)], true),
          isSource: async (folder) => (await this.app.listSources()).some((s) => s.path === folder),
        },
        () => new DisposableStore(),
      ),
    );
    this.store.add(registry.webviewView('docqa.chat', this.chat));
    // Another window sharing this data directory may build and activate a snapshot: this one follows.
    const watcher = this.store.add(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(context.globalStorageUri, '{active.json,sources.json}')));
    for (const on of [watcher.onDidChange, watcher.onDidCreate, watcher.onDidDelete]) this.store.add(on(() => void this.refresh()));
    this.store.add(context.secrets.onDidChange(() => void this.refresh()));
    void this.refresh();
    void this.offerLeftBuild();
  }

  /** Views, status bar and welcome conditions, from the data directory as it is now. */
  async refresh(): Promise<void> {
    this.trees.refresh();
    this.chat.knowledgeBaseChanged();
    this.chat.setupChanged();
    this.tabs.refresh();
    const [chatKey, embeddingKey, sources, active] = await Promise.all([
      this.context.secrets.get(SECRET_IDS.chat),
      this.context.secrets.get(SECRET_IDS.embedding),
      this.app.listSources().catch(() => []),
      this.app.activeSnapshot().catch((err: unknown) => {
        this.log.warn(`status: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      }),
    ]);
    this.active = active ? { state: active.state, failed: active.stats.failed_documents, keywordOnly: active.embedding.provider === 'none' } : null;
    this.renderStatus();
    this.watchSources(sources);
    // A recognised local chat server (Ollama, LM Studio) needs no key: the welcome moves on to the sources.
    const keyless = !chatKey && isLoopback(this.app.settings.chat.base_url) && (await findLocalServer(this.app.settings.chat.base_url).catch(() => null)) !== null;
    // The views' welcome and the walkthrough's steps follow what really happened.
    const facts = { settings: this.app.settings, chatKey: Boolean(chatKey) || keyless || this.models.provider().value === 'vscode', embeddingKey: Boolean(embeddingKey), keywordOnlyChosen: Boolean(this.context.globalState.get(KEYWORD_ONLY_CHOSEN)), sources: sources.length, snapshot: active !== null, answered: Boolean(this.context.globalState.get(ANSWERED)) };
    const context = walkthroughContext(facts);
    for (const [key, value] of Object.entries(context)) await vscode.commands.executeCommand('setContext', key, value);
    await this.markStepsDone(context);
  }

  /**
   * VS Code (1.139) misses an `onContext:` completion whose key was already true when it registered the
   * walkthrough, which it does after an asynchronous lookup, often after DocQA set its keys: the step
   * then stays unchecked for the whole window. So each step whose fact holds is also marked done by id,
   * once per window. Before the walkthrough is registered the command fails (the mark is stored all the
   * same); the next refresh, and opening the walkthrough, try again.
   */
  private async markStepsDone(context: Record<string, boolean>): Promise<void> {
    for (const step of stepsDone(context)) {
      if (this.markedSteps.has(step)) continue;
      try {
        await vscode.commands.executeCommand('welcome.markStepComplete', step);
        this.markedSteps.add(step);
      } catch {
        // Not registered yet (see above).
      }
    }
  }

  /** One watcher per source (its supported files and its .gitignore files), renewed when the sources change. */
  private watchSources(sources: ReadonlyArray<{ path: string; kind: 'file' | 'folder' }>): void {
    const key = sources.map((s) => s.path).join('\n');
    if (key === this.watchedSources) return;
    this.watchedSources = key;
    for (const w of this.sourceWatchers) w.dispose();
    this.sourceWatchers = sources.map((s) => {
      const pattern = s.kind === 'folder' ? new vscode.RelativePattern(vscode.Uri.file(s.path), sourceWatchGlob()) : new vscode.RelativePattern(vscode.Uri.file(path.dirname(s.path)), path.basename(s.path));
      const w = vscode.workspace.createFileSystemWatcher(pattern);
      const on = () => this.scheduler.changed();
      w.onDidChange(on);
      w.onDidCreate(on);
      w.onDidDelete(on);
      return w;
    });
  }

  /** A rebuild nobody asked for in words (files changed): the status bar shows it, no notification; only when an index exists. */
  private async backgroundBuild(): Promise<void> {
    if (!(await this.app.activeSnapshotId())) return;
    if (this.build && (this.build.status.state === 'running' || this.build.status.state === 'paused')) return;
    // Another embedding model re-embeds everything: only a rebuild the person asks for does that.
    if (await this.app.embeddingChange().catch(() => null)) return;
    try {
      // Nobody asked for this build: a source never sent before is not sent now; the person is told instead.
      const confirmEgress = async () => {
        void vscode.window.showInformationMessage(t('DocQA: new sources have not been indexed yet; rebuild the index to review what will be sent.'), t('Rebuild Index')).then((pick) => {
          if (pick) void this.rebuild();
        });
        return false;
      };
      this.build = await this.app.startBuild({ onEvent: (e) => this.onBuildEvent(e), confirmEgress });
      await this.build.done;
    } catch (err) {
      this.log.warn(`background rebuild: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      await this.refresh();
    }
  }

  /** A build a reload or a crash interrupted, or one that was paused: offered again, never started unasked. */
  private async offerLeftBuild(): Promise<void> {
    const left = await this.app.leftBuild().catch(() => null);
    if (!left || left.kind === 'elsewhere') return;
    const message = left.kind === 'paused' ? t('DocQA: an index build was paused. Resume it?') : t('DocQA: an index build was interrupted. Resume it? (work already done is kept)');
    if (await vscode.window.showInformationMessage(message, t('Resume Build'))) await this.rebuild();
  }

  /** The log, with both keys taken out of every line (they are read when a line is written). */
  private logger(): Logger {
    const redact = async (line: string) => new Redactor([await this.context.secrets.get(SECRET_IDS.chat), await this.context.secrets.get(SECRET_IDS.embedding)]).redact(line);
    const at = (write: (s: string) => void) => (message: string) => void redact(message).then(write);
    return { debug: at((s) => this.log.debug(s)), info: at((s) => this.log.info(s)), warn: at((s) => this.log.warn(s)), error: at((s) => this.log.error(s)) };
  }

  /** Every command the extension contributes, with its handler. */
  registerCommands(): void {
    const cmd = (id: string, fn: (...args: never[]) => unknown) => this.store.add(this.registry.command(id, fn));
    cmd('docqa.setChatKey', () => this.setKey('chat'));
    cmd('docqa.setEmbeddingKey', () => this.setKey('embedding'));
    cmd('docqa.clearChatKey', () => this.clearKey('chat'));
    cmd('docqa.clearEmbeddingKey', () => this.clearKey('embedding'));
    cmd('docqa.testConnection', () => this.testConnection());
    cmd('docqa.pickChatModel', () => pickModel(this.app, 'chat'));
    cmd('docqa.pickEmbeddingModel', () => pickModel(this.app, 'embedding'));
    cmd('docqa.openChatInEditor', () => this.chat.openInEditor());
    this.sources.register(cmd);
    cmd('docqa.rebuildIndex', () => this.rebuild());
    cmd('docqa.pauseBuild', () => this.build?.pause());
    cmd('docqa.resumeBuild', () => this.build?.resume());
    cmd('docqa.cancelBuild', () => this.build?.cancel());
    cmd('docqa.showLog', () => this.log.show());
    cmd('docqa.refreshViews', () => this.refresh());
    cmd('docqa.useKeywordOnly', () => this.embeddings.useKeywordOnly());
    cmd('docqa.activateSnapshot', (node?: { id?: string }) => this.snapshotAction(node, 'activate'));
    cmd('docqa.deleteSnapshot', (node?: { id?: string }) => this.snapshotAction(node, 'delete'));
    cmd('docqa.showFailedDocuments', () => this.showFailedDocuments());
    cmd('docqa.revealInExplorer', (node?: { file?: string | null }) => (node?.file ? vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(node.file)) : undefined));
    cmd('docqa.openDataFolder', () => vscode.env.openExternal(this.context.globalStorageUri));
    cmd('docqa.openWalkthrough', async () => {
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
      // The walkthrough is registered now: what an earlier refresh could not mark is marked.
      await this.refresh();
    });
    cmd('docqa.turnOnEmbeddings', () => this.embeddings.turnOn());
    this.tabs.register(cmd);
    cmd('docqa.openPdfPage', (args?: unknown) => openPdfPageCommand(this.context, args));
    this.store.add(registerPdfFileEditor(this.context, this.app, this.registry));
    this.store.add(registerPdfNoteLinks(this.app));
    cmd('docqa.openCitation', (args?: unknown) => openCitationCommand(this.context, this.app, this.logger(), args));
    for (const d of registerChatIntegration(this.registry, this.app, this.models)) this.store.add(d);
  }

  private async snapshotAction(node: { id?: string } | undefined, action: 'activate' | 'delete'): Promise<void> {
    const list = await this.app.listSnapshots();
    const id = node?.id?.startsWith('snapshot:') ? node.id.slice('snapshot:'.length) : (await vscode.window.showQuickPick(list.map((m) => ({ label: m.created_at, description: `${m.state} · ${m.id}`, id: m.id })), { title: action === 'activate' ? t('DocQA: activate which snapshot?') : t('DocQA: delete which snapshot?') }))?.id;
    if (!id) return;
    try {
      if (action === 'activate') {
        await this.app.activateSnapshot(id);
        void vscode.window.showInformationMessage(t('DocQA: snapshot {0} is active.', id));
      } else {
        await this.app.deleteSnapshot(id);
        void vscode.window.showInformationMessage(t('DocQA: snapshot {0} is deleted.', id));
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`DocQA: ${err instanceof Error ? err.message : String(err)}`);
    }
    await this.refresh();
  }

  /** The active snapshot's failed documents, each with its stage, code and reason; picking one opens it. */
  private async showFailedDocuments(): Promise<void> {
    const failed = (await this.app.activeSnapshot())?.failed_documents ?? [];
    if (!failed.length) {
      void vscode.window.showInformationMessage(t('DocQA: no document failed in the active index.'));
      return;
    }
    const pick = await vscode.window.showQuickPick(failed.map((f) => ({ label: showControls(f.path), description: `${f.stage}/${f.code}`, detail: showControls(f.message), file: f.path })), { title: t('DocQA: documents that could not be indexed'), matchOnDescription: true });
    if (pick) await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(pick.file));
  }

  private async setKey(which: 'chat' | 'embedding'): Promise<void> {
    if (await promptForKey(this.context.secrets, which)) {
      // A key for embeddings that are off would do nothing: ask, rather than leave search keyword-only unsaid.
      if (which === 'embedding' && this.app.settings.embedding.provider === 'none') return this.embeddings.offer();
      const pick = await vscode.window.showInformationMessage(which === 'chat' ? t('DocQA: the chat API key is saved.') : t('DocQA: the embedding API key is saved.'), t('Test Connection'));
      if (pick) await this.testConnection();
    }
  }

  private async clearKey(which: 'chat' | 'embedding'): Promise<void> {
    await this.context.secrets.delete(SECRET_IDS[which]);
    void vscode.window.showInformationMessage(which === 'chat' ? t('DocQA: the chat API key is removed.') : t('DocQA: the embedding API key is removed.'));
  }

  private buildRunning(): boolean {
    const s = this.build?.status.state;
    return s === 'running' || s === 'paused';
  }

  /** Test Connection: the chat model questions go to (a VS Code model or DocQA's endpoint) and the embedding endpoint. */
  async testConnection(): Promise<void> {
    await this.connections.run();
  }

  /** A build in the background: cancellable progress, pause and resume from the palette, the status bar kept current. */
  async rebuild(): Promise<void> {
    if (this.build && (this.build.status.state === 'running' || this.build.status.state === 'paused')) {
      void vscode.window.showInformationMessage(t('DocQA: a build is already running.'));
      return;
    }
    // Another embedding model than the active snapshot's re-embeds every block: said, and agreed to, before anything is sent.
    const change = await this.app.embeddingChange().catch(() => null);
    if (change && (await vscode.window.showWarningMessage(`DocQA: ${change}`, { modal: true }, t('Rebuild Index'))) !== t('Rebuild Index')) return;
    let job: BuildJob;
    try {
      job = await this.app.startBuild({ onEvent: (e) => this.onBuildEvent(e), confirmEgress: (plan) => this.confirmEgress(plan) });
    } catch (err) {
      void vscode.window.showErrorMessage(`DocQA: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.build = job;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: t('DocQA: building the index'), cancellable: true }, async (progress, token) => {
      const sub = token.onCancellationRequested(() => job.cancel());
      let reported = 0;
      const tick = setInterval(() => {
        const s = job.status;
        const pct = s.total > 0 ? Math.floor((s.done / s.total) * 100) : 0;
        const ocr = s.ocr ? ` — ${t('OCR of {0}: page {1} ({2} of {3} scanned)', path.basename(s.ocr.path), s.ocr.page, s.ocr.index, s.ocr.count)}` : '';
        progress.report({ message: `${s.phase} ${s.done}/${s.total}${ocr}${s.state === 'paused' ? ` (${t('paused')})` : ''}`, increment: Math.max(0, pct - reported) });
        reported = Math.max(reported, pct);
      }, 250);
      try {
        const r = await job.done;
        if (r) {
          const m = r.manifest;
          const words = m.state === 'ready_partial' ? t('DocQA: the index is ready with {0} documents; {1} could not be indexed.', m.stats.documents, m.stats.failed_documents) : t('DocQA: the index is ready with {0} documents.', m.stats.documents);
          void vscode.window.showInformationMessage(r.activated ? words : t('DocQA: snapshot {0} was built but not activated ({1}).', m.id, m.error ?? m.state));
        }
      } catch (err) {
        void vscode.window.showErrorMessage(`DocQA: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        clearInterval(tick);
        sub.dispose();
        await this.refresh();
      }
    });
  }

  /** A build's event: the status bar, and what a local embedding server embeds (told, not asked). */
  private onBuildEvent(e: BuildEvent): void {
    if (e.type === 'egress_local') void vscode.window.showInformationMessage(localEgressWords(e, t));
    if (e.type === 'ocr_on') void vscode.window.showInformationMessage(ocrOnWords(e, t));
    this.renderStatus();
  }

  /** Before a source's text first goes to an embedding host: what, how much, where, and what was skipped. */
  private async confirmEgress(plan: EgressPlan): Promise<boolean> {
    const { message, detail } = egressPrompt(plan, t);
    const send = t('Send and Build');
    return (await vscode.window.showWarningMessage(message, { modal: true, detail }, send)) === send;
  }

  /** The status bar from what is known now: the build's own status, the active snapshot read at the last refresh. */
  private renderStatus(): void {
    const b = this.build?.status;
    const build = b && (b.state === 'running' || b.state === 'paused') ? { state: b.state, phase: b.phase, done: b.done, total: b.total } : null;
    const view = statusView({ snapshot: this.active, build }, t);
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
  }

  dispose(): void {
    this.build?.cancel();
    this.store.dispose();
  }
}
