import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { errorMessage } from '../common/errors';
import type { TraceFeatures } from './trace-commands';

const t = (message: string, ...args: Array<string | number>) => vscode.l10n.t(message, ...args);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * Evaluations in the editor: run a JSONL gold set N times (progress per run, cancel between runs), see the
 * result in a tab (pass rate, PASS / FAIL / FLIP per case, failure types), compare two saved evaluations.
 */
export class EvalFeatures {
  constructor(
    private readonly app: DocQaApp,
    private readonly traces: TraceFeatures,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  register(cmd: (id: string, fn: (...args: never[]) => unknown) => void): void {
    cmd('docqa.runEvaluation', (uri?: vscode.Uri) => this.runEvaluation(uri));
    cmd('docqa.compareEvaluations', () => this.compare());
  }

  private async runEvaluation(given?: vscode.Uri): Promise<void> {
    const file = given?.scheme === 'file' ? given : (await vscode.window.showOpenDialog({ canSelectMany: false, filters: { [t('Gold set (JSONL)')]: ['jsonl'] }, openLabel: t('Run Evaluation') }))?.[0];
    if (!file) return;
    const repeat = await vscode.window.showInputBox({ title: t('DocQA: runs per case'), value: '1', validateInput: (v) => (/^[1-9]\d*$/.test(v) && Number(v) <= 100 ? null : t('a whole number from 1 to 100')) });
    if (!repeat) return;
    const abort = new AbortController();
    try {
      const { record } = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: t('DocQA: evaluating {0}', file.fsPath), cancellable: true }, async (progress, token) => {
        const sub = token.onCancellationRequested(() => abort.abort());
        let done = 0;
        try {
          return await this.app.evaluate(file.fsPath, {
            repeat: Number(repeat),
            signal: abort.signal,
            onRun: (caseId, r, pass) => {
              done++;
              progress.report({ message: t('{0} runs done · {1} (repeat {2}): {3}', done, caseId, r, pass ? 'PASS' : 'FAIL') });
            },
          });
        } finally {
          sub.dispose();
        }
      });
      this.log.info(`evaluation ${record.eval_id}: ${record.summary.passed}/${record.summary.runs}`);
      await this.traces.openPanel(t('Evaluation {0}', record.eval_id), null, { type: 'show-eval', language: vscode.env.language, record });
    } catch (err) {
      if (abort.signal.aborted) void vscode.window.showInformationMessage(t('DocQA: the evaluation was cancelled; nothing was saved.'));
      else void vscode.window.showErrorMessage(`DocQA: ${errorMessage(err)}`);
    }
  }

  private async compare(): Promise<void> {
    try {
      const evals = await this.app.listEvals();
      if (evals.length < 2) {
        void vscode.window.showInformationMessage(t('DocQA: comparing needs two saved evaluations; run “DocQA: Run Evaluation…” first.'));
        return;
      }
      const items = evals.map((e) => ({ label: e.eval_id, description: `${pct(e.pass_rate)} · ${e.runs} ${t('runs')}`, detail: e.goldset, id: e.eval_id }));
      const a = await vscode.window.showQuickPick(items, { title: t('DocQA: compare from which evaluation (before)?') });
      if (!a) return;
      const b = await vscode.window.showQuickPick(
        items.filter((i) => i.id !== a.id),
        { title: t('DocQA: with which evaluation (after)?') },
      );
      if (!b) return;
      const diff = await this.app.diffEvals(a.id, b.id);
      await this.traces.openPanel(t('{0} vs {1}', a.id, b.id), null, { type: 'show-eval-diff', language: vscode.env.language, diff });
    } catch (err) {
      void vscode.window.showErrorMessage(`DocQA: ${errorMessage(err)}`);
    }
  }
}
