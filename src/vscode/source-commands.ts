import path from 'node:path';
import * as vscode from 'vscode';
import type { BuildJob } from '../app/build-job';
import type { DocQaApp } from '../app/docqa-app';

/** workspaceState: the person agreed to index this workspace while it is untrusted. */
const INDEX_UNTRUSTED_KEY = 'docqa.indexUntrustedWorkspace';
const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

export interface SourceCommandsDeps {
  context: vscode.ExtensionContext;
  app: DocQaApp;
  log: vscode.LogOutputChannel;
  refresh(): Promise<void>;
  rebuild(): Promise<void>;
  /** The build running or paused in this window, if any. */
  running(): BuildJob | null;
}

/**
 * Adding and removing sources from the palette, the views and the Explorer: what is added is indexed
 * at once, and nothing of a workspace in Restricted Mode is indexed without the person's word.
 */
export class SourceCommands {
  constructor(private readonly d: SourceCommandsDeps) {}

  register(cmd: (id: string, fn: (...args: never[]) => unknown) => void): void {
    cmd('docqa.addFolder', () => this.add(undefined, true));
    // The explorer's "Add to DocQA Sources": the clicked item, or every selected one.
    cmd('docqa.addToSources', (uri?: vscode.Uri, uris?: vscode.Uri[]) => (uris?.length || uri ? this.add(uris?.length ? uris : [uri!], true) : undefined));
    cmd('docqa.addFiles', () => this.add(undefined, false));
    cmd('docqa.addWorkspaceFolders', () => this.add((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri), true));
    cmd('docqa.removeSource', (node?: { id?: string }) => this.remove(node));
  }

  async remove(node?: { id?: string }): Promise<void> {
    const { app, log } = this.d;
    const sources = await app.listSources();
    const id = node?.id?.startsWith('source:') ? node.id.slice('source:'.length) : (await vscode.window.showQuickPick(sources.map((s) => ({ label: s.label, description: s.path, id: s.id })), { title: t('DocQA: remove which source?') }))?.id;
    if (!id) return;
    const removed = await app.removeSource(id);
    log.info(`source removed: ${removed.path}`);
    const pick = await vscode.window.showInformationMessage(t('DocQA: removed {0}. Its documents leave the index at the next build.', removed.label), t('Rebuild Index'));
    await this.d.refresh();
    if (pick) await this.d.rebuild();
  }

  async add(uris: readonly vscode.Uri[] | undefined, folders: boolean): Promise<void> {
    const { app, log } = this.d;
    const chosen = uris ?? (await vscode.window.showOpenDialog({ canSelectFiles: !folders, canSelectFolders: folders, canSelectMany: true, openLabel: t('Add to DocQA Sources') }));
    if (!chosen?.length) return;
    const paths = chosen.filter((u) => u.scheme === 'file').map((u) => u.fsPath);
    if (!(await this.mayIndex(paths))) return;
    const out = await app.addSources(paths);
    const added = out.filter((o) => o.status === 'added').map((o) => o.source.label);
    log.info(`sources added: ${added.join(', ') || '(none new)'}`);
    await this.d.refresh();
    if (!added.length) {
      void vscode.window.showInformationMessage(t('DocQA: these sources were already added.'));
      return;
    }
    // Adding a source means wanting it searchable: it is built now (the egress confirmation, when due, comes first).
    void vscode.window.showInformationMessage(t('DocQA: added {0}; indexing it now.', added.join(', ')));
    const running = this.d.running();
    if (running) await running.done.catch(() => undefined);
    await this.d.rebuild();
  }

  /**
   * Restricted Mode: nothing of an untrusted workspace is indexed unless the person says so, once per
   * workspace (paths outside its folders are theirs to choose as always).
   */
  private async mayIndex(paths: readonly string[]): Promise<boolean> {
    const { context } = this.d;
    if (vscode.workspace.isTrusted || context.workspaceState.get<boolean>(INDEX_UNTRUSTED_KEY)) return true;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const inside = paths.some((p) => folders.some((f) => p === f || p.startsWith(f.endsWith(path.sep) ? f : f + path.sep)));
    if (!inside) return true;
    const index = t('Index Anyway');
    const pick = await vscode.window.showWarningMessage(t('DocQA: this workspace is in Restricted Mode. Index its files anyway?'), { modal: true, detail: t('Their text is read and may be sent to your embedding service. Trusting the workspace also allows it.') }, index);
    if (pick !== index) return false;
    await context.workspaceState.update(INDEX_UNTRUSTED_KEY, true);
    return true;
  }
}
