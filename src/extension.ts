import * as vscode from 'vscode';
import { DocQaExtension } from './vscode/docqa-extension';
import { showInspectPanel } from './vscode/inspect-panel';
import { rebuildNeeded, settingsFromConfiguration } from './vscode/settings-model';
import pkg from '../package.json';

let extension: DocQaExtension | null = null;

/**
 * Wires the application layer to VS Code: settings from the configuration (a value the schema refuses
 * is reported in the log and replaced by its default), keys from SecretStorage, the commands. Activation
 * does no I/O beyond creating the objects; the index loads on first use.
 */
export function activate(context: vscode.ExtensionContext): void {
  const problems: string[] = [];
  const read = () => {
    const config = vscode.workspace.getConfiguration();
    const r = settingsFromConfiguration((key) => config.get(key));
    problems.splice(0, problems.length, ...r.problems.map((p) => p.message));
    return r.settings;
  };
  extension = new DocQaExtension(context, read, pkg.version);
  context.subscriptions.push(extension);
  extension.registerCommands();
  for (const p of problems) void vscode.window.showWarningMessage(`DocQA: ${p}`);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      for (const p of problems) void vscode.window.showWarningMessage(`DocQA: ${p}`);
      if (rebuildNeeded((key) => e.affectsConfiguration(key))) {
        void vscode.window.showInformationMessage(vscode.l10n.t('DocQA: this setting changes how documents are indexed; rebuild the index to use it.'), vscode.l10n.t('Rebuild Index')).then((pick) => {
          if (pick) void vscode.commands.executeCommand('docqa.rebuildIndex');
        });
      }
    }),
    vscode.commands.registerCommand('docqa.inspectDocument', async (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target || target.scheme !== 'file') {
        void vscode.window.showWarningMessage(vscode.l10n.t('DocQA: open or select a Markdown, text or PDF file to inspect.'));
        return;
      }
      await showInspectPanel(context, target);
    }),
  );
}

export function deactivate(): void {
  extension = null;
}
