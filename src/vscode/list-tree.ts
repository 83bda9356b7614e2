import * as vscode from 'vscode';
import type { ListNode } from './traces-tree-model';

/** A flat tree view over nodes a function computes from application-layer state; reloaded on refresh. */
export class ListTree implements vscode.TreeDataProvider<ListNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: Promise<ListNode[]> | null = null;

  constructor(
    private readonly load: () => Promise<ListNode[]>,
    private readonly onError: (err: unknown) => void,
  ) {}

  refresh(): void {
    this.nodes = null;
    this.changed.fire();
  }

  getTreeItem(n: ListNode): vscode.TreeItem {
    const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
    item.id = n.id;
    item.description = n.description;
    item.tooltip = n.tooltip;
    item.iconPath = new vscode.ThemeIcon(n.icon);
    item.contextValue = n.contextValue;
    if (n.command) item.command = { command: n.command.id, title: n.label, arguments: n.command.args };
    return item;
  }

  /** A list that cannot be read shows empty and the error is reported once, not a spinning view. */
  async getChildren(n?: ListNode): Promise<ListNode[]> {
    if (n) return [];
    this.nodes ??= this.load().catch((err: unknown) => {
      this.onError(err);
      return [];
    });
    return this.nodes;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
