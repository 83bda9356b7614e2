import type * as vscode from 'vscode';

/** Every subscription and panel of the extension, disposed together; adding after disposal disposes at once. */
export class DisposableStore implements vscode.Disposable {
  private readonly items = new Set<vscode.Disposable>();
  private disposed = false;

  add<T extends vscode.Disposable>(d: T): T {
    if (this.disposed) {
      d.dispose();
      return d;
    }
    this.items.add(d);
    return d;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of [...this.items].reverse()) {
      try {
        d.dispose();
      } catch {
        // one failing disposable must not keep the others alive
      }
    }
    this.items.clear();
  }
}
