import * as vscode from 'vscode';
import type { HostChatModel } from '../app/host-model';
import { UsageError } from '../common/errors';
import { type LmPort, LmRefusal, hostModelOf } from './lm-chat-model';
import { CHAT_PROVIDER_KEY, chatProviderOf } from './settings-model';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

/** Why DocQA asks for a model, as VS Code's consent dialog shows it. */
const JUSTIFICATION = () => t('DocQA answers your questions from your documents with this model.');

/** globalState: the id of the VS Code language model the person picked. */
const PICKED_MODEL = 'docqa.languageModel';

/** One VS Code language model behind the adapter's port: messages as LanguageModelChatMessages, AbortSignal as a cancellation token. */
export function lmPort(model: vscode.LanguageModelChat, justification: string): LmPort {
  return {
    id: model.id,
    vendor: model.vendor,
    name: model.name,
    maxInputTokens: model.maxInputTokens,
    async *send(messages, signal) {
      const cts = tokenOf(signal);
      try {
        const lm = messages.map((m) => (m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.content) : vscode.LanguageModelChatMessage.Assistant(m.content)));
        const response = await model.sendRequest(lm, { justification }, cts.token);
        for await (const part of response.text) yield part;
      } catch (err) {
        rethrow(err);
      } finally {
        cts.dispose();
      }
    },
    async countTokens(text, signal) {
      const cts = tokenOf(signal);
      try {
        return await model.countTokens(text, cts.token);
      } finally {
        cts.dispose();
      }
    },
  };
}

function rethrow(err: unknown): never {
  if (err instanceof vscode.LanguageModelError) throw new LmRefusal(err.code, err.message);
  throw err;
}

function tokenOf(signal: AbortSignal | undefined): vscode.CancellationTokenSource {
  const cts = new vscode.CancellationTokenSource();
  if (signal?.aborted) cts.cancel();
  else signal?.addEventListener('abort', () => cts.cancel(), { once: true });
  return cts;
}

/**
 * VS Code's language models as DocQA's chat provider: the setting, the person's pick (kept in
 * globalState), consent asked from a user action, and the model a question runs on.
 */
export class VsCodeModels {
  constructor(private readonly context: vscode.ExtensionContext) {}

  /** The setting's value, and whether the person set it (else @docqa follows the chat's own model). */
  provider(): { value: 'endpoint' | 'vscode'; set: boolean } {
    const i = vscode.workspace.getConfiguration().inspect<string>(CHAT_PROVIDER_KEY);
    return { value: chatProviderOf(i?.globalValue ?? i?.defaultValue), set: i?.globalValue !== undefined };
  }

  /** The panel's model: a VS Code model when the setting says so, else null (DocQA's endpoint). */
  async hostModel(): Promise<HostChatModel | null> {
    return (await this.lookup())?.host ?? null;
  }

  /**
   * The model the panel (and Test Connection) uses when the setting says a VS Code model, with the
   * name of the picked model when VS Code no longer offers it (another one answers then); null for
   * DocQA's own endpoint. A refusal when VS Code offers none.
   */
  async lookup(): Promise<{ host: HostChatModel; missing: string | null } | null> {
    if (this.provider().value !== 'vscode') return null;
    const { model, missing } = await this.picked();
    return { host: hostModelOf(lmPort(model, JUSTIFICATION()), t), missing };
  }

  /** @docqa's model: the one picked in the chat, unless the setting says otherwise. */
  async forParticipant(chatModel: vscode.LanguageModelChat | undefined): Promise<HostChatModel | null> {
    const p = this.provider();
    if (p.set && p.value === 'endpoint') return null;
    if (p.set && this.context.globalState.get<string>(PICKED_MODEL)) return this.hostModel();
    if (chatModel) return hostModelOf(lmPort(chatModel, JUSTIFICATION()), t);
    return p.value === 'vscode' ? this.hostModel() : null;
  }

  /** The picked model, or the first VS Code offers (naming the picked one it lacks); a clear refusal when there is none. */
  private async picked(): Promise<{ model: vscode.LanguageModelChat; missing: string | null }> {
    const id = this.context.globalState.get<string>(PICKED_MODEL);
    const model = (await vscode.lm.selectChatModels(id ? { id } : {}))[0];
    if (model) return { model, missing: null };
    const other = id ? (await vscode.lm.selectChatModels())[0] : undefined;
    if (!other) throw new UsageError(t('No VS Code language model is available: add one to VS Code (or sign in to Copilot), then run “DocQA: Pick VS Code Language Model”, or set {0} to "endpoint". Nothing was sent.', CHAT_PROVIDER_KEY));
    return { model: other, missing: id ?? null };
  }

  /**
   * "DocQA: Pick VS Code Language Model": the models VS Code offers; the one picked becomes DocQA's chat
   * model, and VS Code asks the person's consent now, while they are acting, not in the middle of a question.
   */
  async pick(): Promise<void> {
    const models = await vscode.lm.selectChatModels();
    if (!models.length) {
      void vscode.window.showWarningMessage(t('DocQA: VS Code offers no language model. Add one (or sign in to Copilot), or keep DocQA\'s own chat endpoint.'));
      return;
    }
    const current = this.context.globalState.get<string>(PICKED_MODEL);
    const pick = await vscode.window.showQuickPick(
      models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.family}${m.id === current ? ` · ${t('current')}` : ''}`, detail: t('{0} input tokens', m.maxInputTokens.toLocaleString()), model: m })),
      { title: t('DocQA: answer with which VS Code language model?') },
    );
    if (!pick) return;
    await this.context.globalState.update(PICKED_MODEL, pick.model.id);
    await vscode.workspace.getConfiguration().update(CHAT_PROVIDER_KEY, 'vscode', vscode.ConfigurationTarget.Global);
    if (this.context.languageModelAccessInformation.canSendRequest(pick.model) !== true) {
      try {
        const r = await pick.model.sendRequest([vscode.LanguageModelChatMessage.User('Reply with OK.')], { justification: JUSTIFICATION() });
        for await (const _ of r.text) void _;
      } catch (err) {
        void vscode.window.showWarningMessage(t('DocQA: {0} cannot be used yet: {1}', pick.model.name, err instanceof Error ? err.message : String(err)));
        return;
      }
    }
    void vscode.window.showInformationMessage(t('DocQA: questions are answered by {0} (no DocQA chat key needed).', pick.model.name));
  }
}
