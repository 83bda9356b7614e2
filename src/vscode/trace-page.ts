/**
 * The trace viewer's page with the reference CSP: styles only from the extension's origin, scripts only
 * with this page's nonce, nothing else. No `vscode` import: the webview tests and the bench serve the
 * same page, with `before` defining what VS Code defines (acquireVsCodeApi, theme variables).
 */
export function traceViewPage(o: { cspSource: string; nonce: string; script: string; style: string; before?: string }): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${o.cspSource}; script-src 'nonce-${o.nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${o.style}">
</head><body><div id="root"></div>${o.before ?? ''}<script nonce="${o.nonce}" src="${o.script}"></script></body></html>`;
}
