import * as vscode from 'vscode';
import type { HostRegistry } from './lazy-registry';
import type { DocQaApp } from '../app/docqa-app';
import { type TreeNode, sourceNodes, snapshotNodes } from './tree-model';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

/** One tree view over nodes a function computes from application-layer state; refreshed on demand. */
class NodeTree implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: Promise<TreeNode[]> | null = null;

  constructor(private readonly load: () => Promise<TreeNode[]>) {}

  refresh(): void {
    this.roots = null;
    this.changed.fire();
  }

  getTreeItem(n: TreeNode): vscode.TreeItem {
    const item = new vscode.TreeItem(n.label, n.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = n.id;
    item.description = n.description;
    item.tooltip = n.tooltip;
    item.iconPath = new vscode.ThemeIcon(n.icon);
    item.contextValue = n.contextValue;
    if (n.file) {
      item.resourceUri = vscode.Uri.file(n.file);
      item.command = { command: 'vscode.open', title: t('Open'), arguments: [vscode.Uri.file(n.file)] };
    }
    return item;
  }

  async getChildren(n?: TreeNode): Promise<TreeNode[]> {
    if (n) return n.children;
    this.roots ??= this.load();
    return this.roots;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The Sources and Snapshots views of the DocQA container. */
export class TreeViews implements vscode.Disposable {
  readonly sources: NodeTree;
  readonly snapshots: NodeTree;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(app: DocQaApp, registry: HostRegistry) {
    this.sources = new NodeTree(async () => sourceNodes(await app.listSources(), await app.activeSnapshot(), t));
    this.snapshots = new NodeTree(async () => snapshotNodes(await app.listSnapshots(), await app.activeSnapshotId(), t));
    this.disposables.push(this.sources, this.snapshots, registry.tree('docqa.sources', this.sources), registry.tree('docqa.snapshots', this.snapshots));
  }

  refresh(): void {
    this.sources.refresh();
    this.snapshots.refresh();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
