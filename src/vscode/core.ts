import * as vscode from 'vscode';
import { DocQaExtension } from './docqa-extension';
import { showInspectPanel } from './inspect-panel';
import type { HostRegistry } from './lazy-registry';
import { rebuildNeeded, settingsFromConfiguration } from './settings-model';

/**
 * The extension's core, loaded by the activation shell (extension.ts) on the first use of a command or
 * view: the application layer wired to VS Code — settings from the configuration (a value the schema
 * refuses is reported and replaced by its default), keys from SecretStorage, the commands and views,
 * registered through the shell's stand-ins. The index itself loads on first use.
 */
export function startCore(context: vscode.ExtensionContext, registry: HostRegistry, appVersion: string): vscode.Disposable {
  const problems: string[] = [];
  const read = () => {
    const config = vscode.workspace.getConfiguration();
    const r = settingsFromConfiguration((key) => config.get(key));
    problems.splice(0, problems.length, ...r.problems.map((p) => p.message));
    return r.settings;
  };
  const extension = new DocQaExtension(context, read, appVersion, registry);
  const subs: vscode.Disposable[] = [extension];
  extension.registerCommands();
  for (const p of problems) void vscode.window.showWarningMessage(`DocQA: ${p}`);
  subs.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      for (const p of problems) void vscode.window.showWarningMessage(`DocQA: ${p}`);
      if (rebuildNeeded((key) => e.affectsConfiguration(key))) {
        void vscode.window.showInformationMessage(vscode.l10n.t('DocQA: this setting changes how documents are indexed; rebuild the index to use it.'), vscode.l10n.t('Rebuild Index')).then((pick) => {
          if (pick) void vscode.commands.executeCommand('docqa.rebuildIndex');
        });
      }
    }),
    registry.command('docqa.inspectDocument', async (uri?: vscode.Uri) => {
      // A Word file, an e-book or a PDF opens in no text editor: the active tab names it.
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: unknown } | undefined;
      const target = uri ?? vscode.window.activeTextEditor?.document.uri ?? (tab?.uri instanceof vscode.Uri ? tab.uri : undefined);
      if (!target || target.scheme !== 'file') {
        void vscode.window.showWarningMessage(vscode.l10n.t('DocQA: open or select a document (Markdown, text, PDF, Word, EPUB, web page or slides) to inspect.'));
        return;
      }
      await showInspectPanel(context, target);
    }),
  );
  return vscode.Disposable.from(...subs);
}
