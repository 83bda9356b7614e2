import crypto from 'node:crypto';
import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import type { Logger } from '../app/settings';
import { workspaceKey } from '../app/conversations/workspace-key';
import { chatHtml } from '../shared/chat-html';
import path from 'node:path';
import type { Setup, UiLang } from '../shared/chat-protocol';
import { ChatSession, type ChatPort, type OpenTarget } from './chat-session';
import type { DisposableStore } from './disposable-store';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);
/** workspaceState: the conversation the chat showed last, restored after a reload. */
const CURRENT_KEY = 'docqa.chat.conversation';
/** globalState: the folder the last note went to, offered first next time. */
const NOTES_KEY = 'docqa.notes.folder';

export interface ChatHostDeps {
  context: vscode.ExtensionContext;
  app: DocQaApp;
  log: Logger;
  building: () => boolean;
  testConnection: () => Promise<{ ok: boolean; message: string }>;
  setup: () => Promise<Setup>;
  /** A question was answered (the walkthrough's last step checks itself off). */
  answered: () => void;
  /** Adds a folder as a source (and builds it), as "Add Folder to Sources" does. */
  addSource: (folder: string) => Promise<void>;
  /** Whether this folder is a source already. */
  isSource: (folder: string) => Promise<boolean>;
}

/** The UI language: Chinese when VS Code's display language is (zh-cn, zh-tw), else English. */
export function uiLang(): UiLang {
  return vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** Opens a citation at its spot, whatever its format, through `docqa.openCitation` (citation-opener.ts). */
async function openLocation(target: OpenTarget): Promise<void> {
  await vscode.commands.executeCommand('docqa.openCitation', target);
}

/** Where the note went, with Open Note, and (once per folder that is no source yet) Add Folder to Sources. */
async function noteSaved(deps: ChatHostDeps, file: string, folder: string): Promise<void> {
  const open = t('Open Note');
  const add = t('Add Folder to Sources');
  const buttons = (await deps.isSource(folder).catch(() => true)) ? [open] : [open, add];
  const pick = await vscode.window.showInformationMessage(t('DocQA: the note is saved as {0}.', path.basename(file)), ...buttons);
  if (pick === open) await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
  else if (pick === add) await deps.addSource(folder);
}

/** The chat's page in a webview, the CSP it needs, and a session speaking the protocol to it. */
function attach(webview: vscode.Webview, deps: ChatHostDeps, store: DisposableStore): ChatSession {
  const dist = vscode.Uri.joinPath(deps.context.extensionUri, 'dist');
  webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist] };
  const uri = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(dist, f)).toString();
  webview.html = chatHtml({ cspSource: webview.cspSource, nonce: crypto.randomBytes(18).toString('base64'), scriptUri: uri('chat.js'), styleUri: uri('chat.css'), codiconUri: uri('codicon.css'), lang: uiLang() });
  const state = deps.context.workspaceState;
  const port: ChatPort = {
    post: (m) => void webview.postMessage(m),
    uiLang,
    workspace: () => workspaceKey((vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath)),
    currentConversation: () => state.get<string | null>(CURRENT_KEY) ?? null,
    rememberConversation: (id) => void state.update(CURRENT_KEY, id),
    openLocation,
    openLink: async (url) => {
      const open = t('Open Link');
      if ((await vscode.window.showWarningMessage(t('DocQA: open {0} in your browser?', url), { modal: true }, open)) !== open) return false;
      return vscode.env.openExternal(vscode.Uri.parse(url, true));
    },
    openTrace: async (runId) => {
      await vscode.commands.executeCommand('docqa.openTrace', runId);
    },
    testConnection: deps.testConnection,
    building: deps.building,
    setup: deps.setup,
    answered: deps.answered,
    copy: (text) => Promise.resolve(vscode.env.clipboard.writeText(text)),
    pickNoteFolder: async () => {
      const last = deps.context.globalState.get<string>(NOTES_KEY);
      const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: t('Save Note Here'), title: t('DocQA: save the note in which folder?'), ...(last ? { defaultUri: vscode.Uri.file(last) } : {}) });
      const folder = picked?.[0]?.scheme === 'file' ? picked[0].fsPath : null;
      if (folder) void deps.context.globalState.update(NOTES_KEY, folder);
      return folder;
    },
    noteSaved: (file, folder) => void noteSaved(deps, file, folder),
    runCommand: async (command) => {
      await vscode.commands.executeCommand(command);
    },
    log: deps.log,
    t,
  };
  const session = new ChatSession(deps.app, port);
  store.add(webview.onDidReceiveMessage((m: unknown) => session.receive(m)));
  store.add({ dispose: () => session.dispose() });
  return session;
}

/**
 * The Chat view in the DocQA container, and "Open Chat in Editor" as a panel: each a ChatSession over
 * the same application layer and history. The sessions hear when the knowledge base changes.
 */
export class ChatViews implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly sessions = new Set<ChatSession>();
  private readonly stores = new Set<DisposableStore>();

  constructor(
    private readonly deps: ChatHostDeps,
    private readonly newStore: () => DisposableStore,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.track(view.webview, (dispose) => view.onDidDispose(dispose));
  }

  openInEditor(): void {
    const panel = vscode.window.createWebviewPanel('docqa.chatPanel', t('DocQA Chat'), vscode.ViewColumn.Beside, { enableScripts: true, retainContextWhenHidden: false });
    this.track(panel.webview, (dispose) => panel.onDidDispose(dispose));
  }

  knowledgeBaseChanged(): void {
    for (const s of this.sessions) void s.knowledgeBaseChanged();
  }

  setupChanged(): void {
    for (const s of this.sessions) void s.setupChanged();
  }

  dispose(): void {
    for (const s of this.stores) s.dispose();
  }

  private track(webview: vscode.Webview, onDispose: (f: () => void) => vscode.Disposable): void {
    const store = this.newStore();
    const session = attach(webview, this.deps, store);
    this.sessions.add(session);
    this.stores.add(store);
    store.add(
      onDispose(() => {
        this.sessions.delete(session);
        this.stores.delete(store);
        store.dispose();
      }),
    );
  }
}
