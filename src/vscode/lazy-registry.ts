import * as vscode from 'vscode';

/**
 * What the extension's core registers its commands and views through. The activation shell (extension.ts)
 * registers a stand-in for every command, tree view, webview view and custom editor of the manifest at
 * activation, so activating loads almost nothing; the core — the application layer and everything it
 * imports — loads on the first use of any of them and fills the stand-ins in.
 */
export interface HostRegistry {
  command(id: string, fn: (...args: never[]) => unknown): vscode.Disposable;
  tree<T>(viewId: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable;
  webviewView(viewId: string, provider: vscode.WebviewViewProvider): vscode.Disposable;
  customEditor(viewType: string, provider: vscode.CustomReadonlyEditorProvider): vscode.Disposable;
  chatParticipant(id: string, handler: vscode.ChatRequestHandler): vscode.Disposable;
  languageModelTool(name: string, tool: vscode.LanguageModelTool<Record<string, unknown>>): vscode.Disposable;
}

/** Options of each custom editor: given when the stand-in is registered, before the core exists. */
export const CUSTOM_EDITOR_OPTIONS: Record<string, { webviewOptions?: vscode.WebviewPanelOptions; supportsMultipleEditorsPerDocument?: boolean }> = {
  'docqa.traceViewer': { webviewOptions: { retainContextWhenHidden: true }, supportsMultipleEditorsPerDocument: true },
};

export interface ManifestParts {
  commands: ReadonlyArray<{ command: string }>;
  views: Record<string, ReadonlyArray<{ id: string; type?: string }>>;
  customEditors?: ReadonlyArray<{ viewType: string }>;
  chatParticipants?: ReadonlyArray<{ id: string }>;
  languageModelTools?: ReadonlyArray<{ name: string }>;
}

type AnyFn = (...args: unknown[]) => unknown;

export class LazyRegistry implements HostRegistry {
  private readonly commands = new Map<string, AnyFn>();
  private readonly trees = new Map<string, vscode.TreeDataProvider<unknown>>();
  private readonly treeEvents = new Map<string, vscode.EventEmitter<unknown>>();
  private readonly webviews = new Map<string, vscode.WebviewViewProvider>();
  private readonly editors = new Map<string, vscode.CustomReadonlyEditorProvider>();
  private readonly participants = new Map<string, vscode.ChatRequestHandler>();
  private readonly tools = new Map<string, vscode.LanguageModelTool<Record<string, unknown>>>();
  private loading: Promise<void> | null = null;

  constructor(private readonly load: (registry: LazyRegistry) => Promise<void>) {}

  /** The core, loaded once, on first use. */
  private core(): Promise<void> {
    this.loading ??= this.load(this);
    return this.loading;
  }

  /** Stand-ins for everything the manifest contributes, registered with VS Code now. */
  install(manifest: ManifestParts): vscode.Disposable[] {
    const out: vscode.Disposable[] = [];
    for (const { command } of manifest.commands) {
      out.push(
        vscode.commands.registerCommand(command, async (...args: unknown[]) => {
          await this.core();
          const fn = this.commands.get(command);
          if (!fn) throw new Error(`DocQA: the command ${command} has no handler`);
          return fn(...args);
        }),
      );
    }
    for (const view of Object.values(manifest.views).flat()) {
      if (view.type === 'webview') {
        out.push(vscode.window.registerWebviewViewProvider(view.id, { resolveWebviewView: async (v, ctx, token) => (await this.webviewOf(view.id)).resolveWebviewView(v, ctx, token) }));
      } else {
        const changed = new vscode.EventEmitter<unknown>();
        this.treeEvents.set(view.id, changed);
        const tree = () => this.treeOf(view.id);
        out.push(
          changed,
          vscode.window.registerTreeDataProvider<unknown>(view.id, {
            onDidChangeTreeData: changed.event,
            getTreeItem: async (e) => (await tree()).getTreeItem(e),
            getChildren: async (e) => (await tree()).getChildren(e),
            getParent: async (e) => (await tree()).getParent?.(e),
          }),
        );
      }
    }
    for (const { viewType } of manifest.customEditors ?? []) {
      const editor = () => this.editorOf(viewType);
      out.push(
        vscode.window.registerCustomEditorProvider(
          viewType,
          {
            openCustomDocument: async (uri, ctx, token) => (await editor()).openCustomDocument(uri, ctx, token),
            resolveCustomEditor: async (doc, panel, token) => (await editor()).resolveCustomEditor(doc, panel, token),
          },
          CUSTOM_EDITOR_OPTIONS[viewType] ?? {},
        ),
      );
    }
    // @docqa and the tools are asked for by VS Code, not by a command: their stand-ins load the core too.
    for (const { id } of manifest.chatParticipants ?? []) {
      const p = vscode.chat.createChatParticipant(id, async (request, context, stream, token) => (await this.participantOf(id))(request, context, stream, token));
      p.iconPath = new vscode.ThemeIcon('book');
      out.push(p);
    }
    for (const { name } of manifest.languageModelTools ?? []) {
      out.push(
        vscode.lm.registerTool<Record<string, unknown>>(name, {
          prepareInvocation: async (options, token) => (await this.toolOf(name)).prepareInvocation?.(options, token),
          invoke: async (options, token) => (await this.toolOf(name)).invoke(options, token),
        }),
      );
    }
    return out;
  }

  chatParticipant(id: string, handler: vscode.ChatRequestHandler): vscode.Disposable {
    this.participants.set(id, handler);
    return { dispose: () => this.participants.delete(id) };
  }

  languageModelTool(name: string, tool: vscode.LanguageModelTool<Record<string, unknown>>): vscode.Disposable {
    this.tools.set(name, tool);
    return { dispose: () => this.tools.delete(name) };
  }

  private async participantOf(id: string): Promise<vscode.ChatRequestHandler> {
    await this.core();
    return this.must(this.participants.get(id), `chat participant ${id}`);
  }

  private async toolOf(name: string): Promise<vscode.LanguageModelTool<Record<string, unknown>>> {
    await this.core();
    return this.must(this.tools.get(name), `language model tool ${name}`);
  }

  command(id: string, fn: (...args: never[]) => unknown): vscode.Disposable {
    this.commands.set(id, fn as AnyFn);
    return { dispose: () => this.commands.delete(id) };
  }

  tree<T>(viewId: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable {
    this.trees.set(viewId, provider as vscode.TreeDataProvider<unknown>);
    const sub = provider.onDidChangeTreeData?.((e) => this.treeEvents.get(viewId)?.fire(e));
    // The view may have asked for its rows while the core loaded: it asks again.
    this.treeEvents.get(viewId)?.fire(undefined);
    return { dispose: () => (sub?.dispose(), this.trees.delete(viewId)) };
  }

  webviewView(viewId: string, provider: vscode.WebviewViewProvider): vscode.Disposable {
    this.webviews.set(viewId, provider);
    return { dispose: () => this.webviews.delete(viewId) };
  }

  customEditor(viewType: string, provider: vscode.CustomReadonlyEditorProvider): vscode.Disposable {
    this.editors.set(viewType, provider);
    return { dispose: () => this.editors.delete(viewType) };
  }

  private async treeOf(id: string): Promise<vscode.TreeDataProvider<unknown>> {
    await this.core();
    return this.must(this.trees.get(id), `tree view ${id}`);
  }

  private async webviewOf(id: string): Promise<vscode.WebviewViewProvider> {
    await this.core();
    return this.must(this.webviews.get(id), `view ${id}`);
  }

  private async editorOf(viewType: string): Promise<vscode.CustomReadonlyEditorProvider> {
    await this.core();
    return this.must(this.editors.get(viewType), `editor ${viewType}`);
  }

  private must<T>(v: T | undefined, what: string): T {
    if (!v) throw new Error(`DocQA: the ${what} has no provider`);
    return v;
  }
}
