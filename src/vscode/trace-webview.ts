import crypto from 'node:crypto';
import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import type { HostToTraceView } from '../shared/trace-protocol';
import { traceViewPage } from './trace-page';
import { type TraceHost, TraceSession } from './trace-session';

export function traceViewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const dist = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', f)).toString();
  return traceViewPage({ cspSource: webview.cspSource, nonce: crypto.randomBytes(16).toString('base64'), script: dist('trace.js'), style: dist('trace.css') });
}

export const traceWebviewOptions = (extensionUri: vscode.Uri): vscode.WebviewOptions => ({ enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')] });

export interface ViewDeps {
  extensionUri: vscode.Uri;
  /** The editor's side of the session (documents, clipboard, notifications, opening another trace). */
  host: Omit<TraceHost, 'post'>;
  otlpEndpoint: () => string | null;
}

/**
 * Puts a trace (or an evaluation: `shown`) into a webview panel and answers its messages until the panel
 * closes. A trace that cannot be read is reported and the panel shows nothing of it.
 */
export async function showInPanel(panel: vscode.WebviewPanel, app: DocQaApp, runId: string | null, deps: ViewDeps, shown?: HostToTraceView): Promise<vscode.Disposable> {
  panel.webview.options = traceWebviewOptions(deps.extensionUri);
  const session = new TraceSession(app, runId, { ...deps.host, post: (m) => void panel.webview.postMessage(m) }, { language: vscode.env.language, otlpEndpoint: deps.otlpEndpoint, fullTraceHint: vscode.l10n.t('the setting docqa.trace.mode set to "full"') });
  const sub = panel.webview.onDidReceiveMessage((raw: unknown) => void session.receive(raw));
  panel.webview.html = traceViewHtml(panel.webview, deps.extensionUri);
  try {
    await session.prepare(shown);
  } catch (err) {
    deps.host.notify('error', err instanceof Error ? err.message : String(err));
  }
  return sub;
}
