import * as vscode from 'vscode';
import type { KeyProvider } from '../app/settings';

/** Where each key lives in VS Code's SecretStorage (the OS keychain on desktop); never in settings. */
export const SECRET_IDS = { chat: 'docqa.chatApiKey', embedding: 'docqa.embeddingApiKey' } as const;

/** The keys, read from SecretStorage when a request needs them. */
export function secretKeys(secrets: vscode.SecretStorage): KeyProvider {
  return {
    chat: async () => (await secrets.get(SECRET_IDS.chat)) || undefined,
    embedding: async () => (await secrets.get(SECRET_IDS.embedding)) || undefined,
  };
}

/** Asks for a key in a password box and stores it; returns whether one was stored. */
export async function promptForKey(secrets: vscode.SecretStorage, which: 'chat' | 'embedding'): Promise<boolean> {
  const value = await vscode.window.showInputBox({
    title: which === 'chat' ? vscode.l10n.t('DocQA: Chat API Key') : vscode.l10n.t('DocQA: Embedding API Key'),
    prompt: which === 'chat' ? vscode.l10n.t('The API key of your chat model (DeepSeek or another OpenAI-compatible service). It is kept in VS Code’s secret storage only.') : vscode.l10n.t('The API key of your embedding service. It is kept in VS Code’s secret storage only.'),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter the key, or press Escape to cancel.')),
  });
  if (!value?.trim()) return false;
  await secrets.store(SECRET_IDS[which], value.trim());
  return true;
}
