import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { traceFileParts } from './trace-file';
import { type ViewDeps, showInPanel } from './trace-webview';

export const TRACE_VIEW_TYPE = 'docqa.traceViewer';

/**
 * A trace.json from a DocQA data directory opened as the trace viewer (the file itself is only the run's
 * meta; the viewer reads the spans and artifacts beside it). A trace from another data directory (the
 * CLI's, say) is read with that directory's application layer, with this window's settings and keys.
 */
export class TraceEditorProvider implements vscode.CustomReadonlyEditorProvider {
  private readonly disposables = new Map<vscode.WebviewPanel, vscode.Disposable>();

  constructor(
    private readonly appFor: (dataDir: string) => DocQaApp,
    private readonly deps: ViewDeps,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => {} };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const parts = document.uri.scheme === 'file' ? traceFileParts(document.uri.fsPath) : null;
    if (!parts) {
      panel.webview.html = `<!DOCTYPE html><html><body><p>${vscode.l10n.t('DocQA: this file is not a trace of a DocQA data directory (…/traces/<run id>/trace.json).')}</p></body></html>`;
      return;
    }
    const sub = await showInPanel(panel, this.appFor(parts.dataDir), parts.runId, this.deps);
    this.disposables.set(panel, sub);
    panel.onDidDispose(() => {
      sub.dispose();
      this.disposables.delete(panel);
    });
  }

  dispose(): void {
    for (const d of this.disposables.values()) d.dispose();
    this.disposables.clear();
  }
}
