import * as vscode from 'vscode';
import type { HostRegistry } from './lazy-registry';
import type { DocQaApp } from '../app/docqa-app';
import { errorMessage } from '../common/errors';
import type { BundleListing } from '../harness/prompt-store';
import type { DisposableStore } from './disposable-store';
import { ListTree } from './list-tree';
import { promptNodes } from './prompts-tree-model';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

type Node = { id?: string } | undefined;

/**
 * Prompt bundles in the editor: the Prompts view (release baselines read-only, experiments with their
 * content hashes), and new from / edit / freeze / promote / roll back, all through DocQaApp's prompt
 * methods. A refusal (a frozen bundle that changed, nothing to roll back) is a notification with the reason.
 */
export class PromptFeatures {
  readonly tree: ListTree;

  constructor(
    private readonly app: DocQaApp,
    store: DisposableStore,
    private readonly log: vscode.LogOutputChannel,
    registry: HostRegistry,
  ) {
    this.tree = store.add(new ListTree(async () => promptNodes(await app.listPrompts(), t), (err) => log.warn(`prompts view: ${errorMessage(err)}`)));
    store.add(registry.tree('docqa.prompts', this.tree));
  }

  register(cmd: (id: string, fn: (...args: never[]) => unknown) => void): void {
    cmd('docqa.newPrompt', (n?: Node) => this.run(() => this.newFrom(n)));
    cmd('docqa.editPrompt', (n?: Node) => this.run(() => this.edit(n)));
    cmd('docqa.freezePrompt', (n?: Node) => this.run(() => this.freeze(n)));
    cmd('docqa.promotePrompt', (n?: Node) => this.run(() => this.promote(n)));
    cmd('docqa.rollbackPrompt', () => this.run(() => this.rollback()));
    cmd('docqa.refreshPrompts', () => this.tree.refresh());
  }

  private async run(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.log.warn(`prompts: ${errorMessage(err)}`);
      void vscode.window.showErrorMessage(`DocQA: ${errorMessage(err)}`);
    } finally {
      this.tree.refresh();
    }
  }

  /** The bundle a view item names, or one picked from those `filter` allows. */
  private async bundle(n: Node, title: string, filter: (b: BundleListing) => boolean = () => true): Promise<BundleListing | undefined> {
    const all = await this.app.listPrompts();
    if (n?.id?.startsWith('prompt:')) return all.find((b) => b.id === n.id!.slice('prompt:'.length));
    const items = all.filter(filter).map((b) => ({ label: b.id, description: `${b.origin === 'baseline' ? t('release baseline') : b.frozen ? t('frozen') : t('draft')} · ${b.hash.slice(0, 12)}`, b }));
    if (!items.length) {
      void vscode.window.showInformationMessage(t('DocQA: no prompt bundle fits; make one with “DocQA: New Prompt Bundle From…”.'));
      return undefined;
    }
    return (await vscode.window.showQuickPick(items, { title }))?.b;
  }

  private async newFrom(n: Node): Promise<void> {
    const from = await this.bundle(n, t('DocQA: copy which prompt bundle?'));
    if (!from) return;
    const id = await vscode.window.showInputBox({ title: t('DocQA: id of the new bundle (empty: {0}-expN)', from.id), validateInput: (v) => (v === '' || /^[a-z0-9][a-z0-9._-]*$/.test(v) ? null : t('lower-case letters, digits, ".", "_", "-"')) });
    if (id === undefined) return;
    const b = await this.app.newPrompt(from.id, id || undefined);
    this.log.info(`prompt bundle ${b.id} created from ${from.id}`);
    if (b.template) await vscode.window.showTextDocument(vscode.Uri.file(b.template));
  }

  /** Opens a draft's template to edit; a baseline or frozen bundle's template opens read-only. */
  private async edit(n: Node): Promise<void> {
    const b = await this.bundle(n, t('DocQA: open the template of which bundle?'));
    if (!b?.template) return;
    const uri = vscode.Uri.file(b.template);
    if (b.origin === 'baseline' || b.frozen) {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true });
      // A frozen or baseline bundle must not change: the editor says so instead of letting a save break it.
      await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
      return;
    }
    await vscode.window.showTextDocument(uri);
  }

  private async freeze(n: Node): Promise<void> {
    const b = await this.bundle(n, t('DocQA: freeze which bundle?'), (x) => x.origin !== 'baseline' && !x.frozen);
    if (!b) return;
    const frozen = await this.app.freezePrompt(b.id);
    void vscode.window.showInformationMessage(t('DocQA: {0} is frozen at {1}.', frozen.id, frozen.hash.slice(0, 12)));
  }

  private async promote(n: Node): Promise<void> {
    const b = await this.bundle(n, t('DocQA: promote which bundle (it is frozen)?'), (x) => !x.active);
    if (!b) return;
    await this.app.promotePrompt(b.id);
    void vscode.window.showInformationMessage(t('DocQA: every question now uses {0}.', b.id));
  }

  private async rollback(): Promise<void> {
    const s = await this.app.rollbackPrompt();
    void vscode.window.showInformationMessage(s.active ? t('DocQA: every question now uses {0}.', s.active) : t('DocQA: questions use the release baseline of their language again.'));
  }
}
