import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { HostRegistry } from './lazy-registry';
import type { DocQaApp } from '../app/docqa-app';
import { DocQaApp as App } from '../app/docqa-app';
import { errorMessage } from '../common/errors';
import type { HostToTraceView } from '../shared/trace-protocol';
import type { DisposableStore } from './disposable-store';
import { ListTree } from './list-tree';
import { otlpEndpointFromConfiguration } from './settings-model';
import { TRACE_VIEW_TYPE, TraceEditorProvider } from './trace-editor';
import { loadTraceData } from './trace-session';
import { type ViewDeps, showInPanel } from './trace-webview';
import { traceNodes } from './traces-tree-model';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

/** Read-only text documents (a turn's prompt): a content provider's documents cannot be edited. */
const PROMPT_SCHEME = 'docqa-prompt';

export interface FeatureDeps {
  context: vscode.ExtensionContext;
  app: DocQaApp;
  store: DisposableStore;
  log: vscode.LogOutputChannel;
  /** The app options of this window, for a trace of another data directory (the CLI's, say). */
  appOptions: Omit<ConstructorParameters<typeof App>[0], 'dataDir'>;
  /** Where commands and views are registered (the activation shell's stand-ins). */
  registry: HostRegistry;
}

/**
 * Traces in the editor: the trace viewer as a custom editor for trace.json, the Traces view, "Open Latest
 * Trace", "Open Trace…", and `docqa.openTrace(runId: string)` (what the chat view calls for an answer).
 */
export class TraceFeatures {
  readonly viewDeps: ViewDeps;
  readonly tree: ListTree;
  private readonly texts = new Map<string, string>();
  private readonly others = new Map<string, DocQaApp>();

  constructor(private readonly d: FeatureDeps) {
    const changed = d.store.add(new vscode.EventEmitter<vscode.Uri>());
    d.store.add(vscode.workspace.registerTextDocumentContentProvider(PROMPT_SCHEME, { onDidChange: changed.event, provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '' }));
    this.viewDeps = {
      extensionUri: d.context.extensionUri,
      otlpEndpoint: () => this.otlpEndpoint(),
      host: {
        openText: async (title, content) => {
          const uri = vscode.Uri.from({ scheme: PROMPT_SCHEME, path: `/${title}` });
          this.texts.set(uri.toString(), content);
          changed.fire(uri);
          await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true, viewColumn: vscode.ViewColumn.Beside });
        },
        copy: async (text) => {
          await vscode.env.clipboard.writeText(text);
          void vscode.window.showInformationMessage(t('DocQA: copied run id {0}.', text));
        },
        notify: (kind, message) => void (kind === 'error' ? vscode.window.showErrorMessage(`DocQA: ${message}`) : vscode.window.showInformationMessage(`DocQA: ${message}`)),
        openTrace: (runId) => this.openTrace(runId),
        openCitation: async (target) => void (await vscode.commands.executeCommand('docqa.openCitation', target)),
        log: (line) => d.log.info(line),
      },
    };
    d.store.add(d.registry.customEditor(TRACE_VIEW_TYPE, d.store.add(new TraceEditorProvider((dir) => this.appFor(dir), this.viewDeps))));
    this.tree = d.store.add(new ListTree(async () => traceNodes(await d.app.listTraces(), t), (err) => d.log.warn(`traces view: ${errorMessage(err)}`)));
    d.store.add(d.registry.tree('docqa.traces', this.tree));
    // Other data directories' apps follow this window's settings (the extension updates its own first: it subscribed first).
    d.store.add(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('docqa') && this.others.forEach((a) => a.updateSettings(d.app.settings))));
    // A run finished in this window or another one writes its trace.json last: the view follows.
    const watcher = d.store.add(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(d.context.globalStorageUri, 'traces/*/trace.json')));
    for (const on of [watcher.onDidCreate, watcher.onDidDelete]) d.store.add(on(() => this.tree.refresh()));
  }

  register(cmd: (id: string, fn: (...args: never[]) => unknown) => void): void {
    cmd('docqa.openTrace', (runId?: string) => (typeof runId === 'string' ? this.openTrace(runId) : this.pickTrace()));
    cmd('docqa.openLatestTrace', () => this.openLatest());
    cmd('docqa.pickTrace', () => this.pickTrace());
    cmd('docqa.refreshTraces', () => this.tree.refresh());
  }

  /** The OTLP endpoint setting, checked; a bad value is reported and treated as not configured. */
  otlpEndpoint(): string | null {
    const config = vscode.workspace.getConfiguration();
    const r = otlpEndpointFromConfiguration((key) => config.get(key));
    if (r.problem) this.d.log.warn(r.problem.message);
    return r.url;
  }

  /** The application layer of another data directory, with this window's settings and keys. */
  appFor(dataDir: string): DocQaApp {
    if (path.resolve(dataDir) === path.resolve(this.d.app.dir.root)) return this.d.app;
    let app = this.others.get(dataDir);
    if (!app) {
      app = new App({ ...this.d.appOptions, settings: this.d.app.settings, dataDir });
      this.others.set(dataDir, app);
    }
    return app;
  }

  /** Opens a run's trace in the viewer: its trace.json through the custom editor, or (never written) a panel over its records. */
  async openTrace(runId: string): Promise<void> {
    const file = path.join(this.d.app.dir.traceDir(runId), 'trace.json');
    try {
      if (fs.existsSync(file)) {
        await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), TRACE_VIEW_TYPE);
        return;
      }
      // Read first: a run id with no trace at all is an error message, not an empty tab.
      const trace = await loadTraceData(this.d.app, runId);
      await this.openPanel(t('Trace {0}', runId), runId, { type: 'show-trace', language: vscode.env.language, otlp: this.otlpEndpoint() !== null, trace });
    } catch (err) {
      void vscode.window.showErrorMessage(`DocQA: ${errorMessage(err)}`);
    }
  }

  /** A viewer tab that is not a file's editor: an incomplete trace, an evaluation, a comparison. */
  async openPanel(title: string, runId: string | null, shown?: HostToTraceView): Promise<void> {
    const panel = vscode.window.createWebviewPanel('docqa.traceView', title, vscode.ViewColumn.Active, { retainContextWhenHidden: true });
    const sub = await showInPanel(panel, this.d.app, runId, this.viewDeps, shown);
    panel.onDidDispose(() => sub.dispose());
  }

  private async openLatest(): Promise<void> {
    const latest = (await this.d.app.listTraces())[0];
    if (!latest) {
      void vscode.window.showInformationMessage(t('DocQA: no traces yet; every question leaves one.'));
      return;
    }
    await this.openTrace(latest.run_id);
  }

  private async pickTrace(): Promise<void> {
    const items = traceNodes(await this.d.app.listTraces(), t).map((n) => ({ label: n.label, description: n.description, detail: n.id.slice('trace:'.length), runId: n.id.slice('trace:'.length) }));
    if (!items.length) {
      void vscode.window.showInformationMessage(t('DocQA: no traces yet; every question leaves one.'));
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: t('DocQA: open the trace of which run?'), matchOnDescription: true, matchOnDetail: true });
    if (pick) await this.openTrace(pick.runId);
  }
}
