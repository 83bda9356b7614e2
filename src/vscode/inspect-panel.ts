import crypto from 'node:crypto';
import path from 'node:path';
import * as vscode from 'vscode';
import { inspectFile } from '../app/inspect';
import { DataDir } from '../common/data-dir';
import { DEFAULT_INGEST_OPTIONS } from '../index/model';
import { type Document } from '../shared/document';
import { type HostToWebview, WebviewToHost } from '../shared/webview-protocol';

function html(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<style nonce="${nonce}">body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)} .meta{opacity:.7;font-size:90%} pre{white-space:pre-wrap;background:var(--vscode-textCodeBlock-background);padding:6px} ul.sections{list-style:none;padding:0}</style>
</head><body><div id="root"></div><script nonce="${nonce}" src="${script}"></script></body></html>`;
}

/** Opens the source at a block's location, as a citation to it opens (docqa.openCitation). */
async function openBlock(doc: Document, index: number): Promise<void> {
  const block = doc.blocks[index];
  if (!block) return;
  await vscode.commands.executeCommand('docqa.openCitation', { path: doc.path, location: block.location, text: block.text, title: doc.title, content_hash: doc.content_hash });
}

/** "DocQA: Inspect Document Structure": what a file becomes (sections, blocks, locations) in a webview. */
export async function showInspectPanel(context: vscode.ExtensionContext, uri: vscode.Uri): Promise<void> {
  // Parsed in an ingestion worker: the extension host is shared with every other extension.
  const { outcome } = await inspectFile(new DataDir(context.globalStorageUri.fsPath), uri.fsPath, DEFAULT_INGEST_OPTIONS, '“DocQA: Add to Sources”');
  const panel = vscode.window.createWebviewPanel('docqa.inspect', `Inspect: ${path.basename(uri.fsPath)}`, vscode.ViewColumn.Beside, {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist')],
  });
  panel.webview.html = html(panel.webview, context.extensionUri);
  const message: HostToWebview = outcome.ok
    ? { type: 'inspect-result', path: uri.fsPath, document: outcome.document }
    : { type: 'inspect-failure', failure: outcome.failure };
  const sub = panel.webview.onDidReceiveMessage((raw: unknown) => {
    const parsed = WebviewToHost.safeParse(raw);
    if (!parsed.success) return;
    if (parsed.data.type === 'ready') void panel.webview.postMessage(message);
    else if (outcome.ok) void openBlock(outcome.document, parsed.data.block_index);
  });
  panel.onDidDispose(() => sub.dispose());
}
