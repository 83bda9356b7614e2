import crypto from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The Chat view until the chat itself (issue "DocQA in VS Code, part 2") lands: it says so, and how to
 * ask in the meantime. A strict CSP and no script at all.
 */
export class ChatPlaceholder implements vscode.WebviewViewProvider {
  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = { enableScripts: false, enableCommandUris: false, localResourceRoots: [] };
    const nonce = crypto.randomBytes(16).toString('base64');
    const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
    view.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}';">
<style nonce="${nonce}">body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);padding:8px} code{font-family:var(--vscode-editor-font-family)}</style>
</head><body><p>${esc(vscode.l10n.t('The chat is coming in the next release. Until then, ask from a terminal with the docqa command, over the same index:'))}</p>
<p><code>docqa ask "…"</code></p></body></html>`;
  }
}
