/**
 * The chat view's page, as a pure function of what only the host knows (its webview's cspSource, a
 * fresh nonce, the dist URIs), so the host and the Chromium tests serve the same page under the same
 * CSP. Nothing inline: the one script carries the nonce; styles and the codicon font come from dist.
 */
export interface ChatPage {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
  lang?: 'en' | 'zh';
}

export function chatCsp(cspSource: string, nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${cspSource}; font-src ${cspSource}; img-src ${cspSource} data:`;
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function chatHtml(p: ChatPage): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(p.nonce)) throw new Error('the nonce must be at least 16 base64 characters');
  return `<!DOCTYPE html>
<html lang="${p.lang === 'zh' ? 'zh-CN' : 'en'}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(chatCsp(p.cspSource, p.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(p.codiconUri)}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${attr(p.styleUri)}">
<title>DocQA</title>
</head>
<body>
<div id="root"></div>
<script nonce="${p.nonce}" src="${attr(p.scriptUri)}"></script>
</body>
</html>
`;
}
