import * as vscode from 'vscode';
import { showInspectPanel } from './vscode/inspect-panel';

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('docqa.inspectDocument', async (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target || target.scheme !== 'file') {
        void vscode.window.showWarningMessage('DocQA: open or select a Markdown, text or PDF file to inspect.');
        return;
      }
      await showInspectPanel(context, target);
    }),
  );
}

export function deactivate(): void {}
