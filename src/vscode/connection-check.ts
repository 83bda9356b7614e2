import * as vscode from 'vscode';
import type { ConnectionReport } from '../app/connection-test';
import type { DocQaApp } from '../app/docqa-app';
import { testLanguageModel } from './lm-connection';
import type { VsCodeModels } from './lm-models';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);

export interface ConnectionCheckDeps {
  app: DocQaApp;
  models: VsCodeModels;
  log: vscode.LogOutputChannel;
  setKey(which: 'chat' | 'embedding'): Promise<void>;
  turnOnEmbeddings(): Promise<void>;
}

/**
 * "DocQA: Test Connection": the chat model questions really go to — the VS Code language model the
 * person picked when `docqa.chat.provider` says so, else DocQA's own endpoint — and the embedding
 * endpoint, each reported in words: OK with the model and the latency, or what to change.
 */
export class ConnectionCheck {
  constructor(private readonly d: ConnectionCheckDeps) {}

  /** Both checks at once; the chat's goes through vscode.lm when a VS Code model answers questions (`lm`). */
  private async reports(signal?: AbortSignal): Promise<Array<{ r: ConnectionReport; lm: boolean }>> {
    const chat = async () => {
      const lm = await testLanguageModel(() => this.d.models.lookup(), t, () => performance.now(), signal);
      return lm ? { r: lm, lm: true } : { r: await this.d.app.testConnection('chat', signal), lm: false };
    };
    const reports = await Promise.all([chat(), this.d.app.testConnection('embedding', signal).then((r) => ({ r, lm: false }))]);
    for (const { r, lm } of reports) this.d.log.info(`test connection (${r.provider}${lm ? ', vscode-lm' : ''}): ${r.detail}`);
    return reports;
  }

  /** For the chat's FAILED answer: both in one message (no secrets). */
  async words(): Promise<{ ok: boolean; message: string }> {
    const reports = await this.reports();
    return { ok: reports.every(({ r }) => r.ok), message: reports.map(({ r }) => r.detail).join(' ') };
  }

  /** The command: cancellable progress, then one notification per check, with the button that fixes a failure. */
  async run(): Promise<void> {
    const reports = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: t('DocQA: testing the connections…'), cancellable: true }, async (_progress, token) => {
      const ac = new AbortController();
      const sub = token.onCancellationRequested(() => ac.abort());
      try {
        return await this.reports(ac.signal);
      } catch (err) {
        if (ac.signal.aborted) return null;
        throw err;
      } finally {
        sub.dispose();
      }
    });
    for (const { r, lm } of reports ?? []) this.show(r, lm);
  }

  private show(r: ConnectionReport, lm: boolean): void {
    if (r.ok && r.skipped) {
      const on = t('Turn On Embeddings');
      void vscode.window.showInformationMessage(`DocQA: ${r.detail}`, on).then((pick) => {
        if (pick === on) void this.d.turnOnEmbeddings();
      });
    } else if (r.ok) void vscode.window.showInformationMessage(`DocQA: ${r.detail}`);
    else if (lm) {
      // A VS Code language model: picking one is the fix.
      const pickModel = t('Pick VS Code Language Model');
      void vscode.window.showErrorMessage(`DocQA: ${r.detail}`, pickModel).then((pick) => {
        if (pick) void vscode.commands.executeCommand('docqa.pickLanguageModel');
      });
    } else {
      const fix = r.failure?.action === 'set_key' || r.failure?.action === 'check_key' ? t('Set Key') : t('Open Settings');
      void vscode.window.showErrorMessage(`DocQA: ${r.detail}`, fix).then((pick) => {
        if (pick === t('Set Key')) void this.d.setKey(r.provider);
        else if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', `docqa.${r.provider}`);
      });
    }
  }
}
