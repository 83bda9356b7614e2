import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { SERVER_NAMES } from '../common/served-window';
import { modelPickItems } from './model-pick-items';

const t = vscode.l10n.t;

/**
 * "DocQA: Pick Chat Model" and "DocQA: Pick Embedding Model": the server's model list in a quick pick,
 * the choice written to the user's setting (endpoint settings are user settings). Keyword-only, the
 * embedding models come from the chat endpoint, and picking one there turns embeddings on at that
 * endpoint (the configuration change then says a rebuild is needed).
 */
export async function pickModel(app: DocQaApp, which: 'chat' | 'embedding'): Promise<void> {
  let listing;
  try {
    listing = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: t('DocQA: reading the list of models…') }, () => app.listModels(which));
  } catch (err) {
    void vscode.window.showErrorMessage(`DocQA: ${err instanceof Error ? err.message : String(err)}`, t('Open Settings')).then((pick) => pick && vscode.commands.executeCommand('workbench.action.openSettings', `docqa.${which}`));
    return;
  }
  const s = app.settings;
  const current = which === 'chat' ? s.chat.model : s.embedding.provider === 'none' ? null : s.embedding.model;
  const items = modelPickItems(listing, which, current, t);
  const where = listing.server ? `${SERVER_NAMES[listing.server]} · ${listing.endpoint}` : listing.endpoint;
  if (!items.length) {
    void vscode.window.showWarningMessage(which === 'chat' ? t('DocQA: {0} offers no chat model.', where) : t('DocQA: {0} offers no embedding model.', where));
    return;
  }
  const pick = await vscode.window.showQuickPick(items, { title: which === 'chat' ? t('DocQA: chat model ({0})', where) : t('DocQA: embedding model ({0})', where), matchOnDescription: true });
  if (!pick) return;
  const config = vscode.workspace.getConfiguration('docqa');
  if (which === 'chat') await config.update('chat.model', pick.id, vscode.ConfigurationTarget.Global);
  else {
    if (s.embedding.provider === 'none') {
      await config.update('embedding.provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
      await config.update('embedding.baseUrl', s.chat.base_url, vscode.ConfigurationTarget.Global);
    }
    await config.update('embedding.model', pick.id, vscode.ConfigurationTarget.Global);
  }
  const test = t('Test Connection');
  if ((await vscode.window.showInformationMessage(which === 'chat' ? t('DocQA: the chat model is now {0}.', pick.id) : t('DocQA: the embedding model is now {0}.', pick.id), test)) === test) await vscode.commands.executeCommand('docqa.testConnection');
}
