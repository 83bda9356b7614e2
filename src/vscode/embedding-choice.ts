import * as vscode from 'vscode';
import { vscodeKeyOf } from '../app/settings-table/names';
import { KEYWORD_ONLY_CHOSEN } from './walkthrough';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

/**
 * Search by meaning or by words: keyword-only chosen (no embedding endpoint, no key), or embeddings
 * turned on — offered when an embedding key is set while they are off, and from Test Connection's
 * keyword-only notice. The choice is a user setting; the walkthrough's step hears of it.
 */
export class EmbeddingChoice {
  constructor(private readonly deps: { context: vscode.ExtensionContext; refresh: () => Promise<void>; rebuild: () => Promise<void> }) {}

  async useKeywordOnly(): Promise<void> {
    await this.deps.context.globalState.update(KEYWORD_ONLY_CHOSEN, true);
    await vscode.workspace.getConfiguration().update(vscodeKeyOf('embedding.provider'), 'none', vscode.ConfigurationTarget.Global);
    const pick = await vscode.window.showInformationMessage(t('DocQA: keyword-only search is on. Rebuild the index to use it.'), t('Rebuild Index'));
    if (pick) await this.deps.rebuild();
  }

  /** An embedding key was set while embeddings are off: turn them on? */
  async offer(): Promise<void> {
    const on = t('Turn On Embeddings');
    const pick = await vscode.window.showInformationMessage(t('DocQA: the embedding API key is saved, but embeddings are off: search matches words, not meaning. Turn embeddings on?'), on, t('Keep Keyword-Only'));
    if (pick === on) await this.turnOn();
  }

  /** Embeddings on (an OpenAI-compatible endpoint); its base URL and model asked for in the Settings editor when missing. */
  async turnOn(): Promise<void> {
    await this.deps.context.globalState.update(KEYWORD_ONLY_CHOSEN, false);
    const config = vscode.workspace.getConfiguration();
    await config.update(vscodeKeyOf('embedding.provider'), 'openai-compatible', vscode.ConfigurationTarget.Global);
    if (!config.get<string>(vscodeKeyOf('embedding.base_url')) || !config.get<string>(vscodeKeyOf('embedding.model'))) {
      void vscode.window.showInformationMessage(t('DocQA: embeddings are on. Set the embedding base URL and model, then rebuild the index.'));
      await vscode.commands.executeCommand('workbench.action.openSettings', 'docqa.embedding');
    }
    await this.deps.refresh();
  }
}
