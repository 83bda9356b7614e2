import path from 'node:path';
import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { type ViewDeps, showInPanel } from './trace-webview';

export const TRACE_VIEW_TYPE = 'docqa.traceViewer';

/** `<data dir>/traces/<run id>/trace.json` → the data directory and the run id; null for any other file. */
export function traceFileParts(file: string): { dataDir: string; runId: string } | null {
  const folder = path.dirname(file);
  const traces = path.dirname(folder);
  if (path.basename(file) !== 'trace.json' || path.basename(traces) !== 'traces') return null;
  const runId = path.basename(folder);
  return /^r\d{8}T\d{9}Z-[0-9a-f]{6}$/.test(runId) ? { dataDir: path.dirname(traces), runId } : null;
}

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
