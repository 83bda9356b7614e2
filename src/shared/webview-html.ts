/**
 * The page every DocQA webview is served as: a CSP meta tag, stylesheets from dist, one script carrying
 * the nonce, and nothing inline. Pure, so the host and the Chromium tests serve the same page.
 */
export interface WebviewPage {
  csp: string;
  nonce: string;
  scriptUri: string;
  styles: Array<{ href: string; id?: string }>;
  title: string;
  lang?: 'en' | 'zh';
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function webviewHtml(p: WebviewPage): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(p.nonce)) throw new Error('the nonce must be at least 16 base64 characters');
  const links = p.styles.map((s) => `<link rel="stylesheet" href="${attr(s.href)}"${s.id ? ` id="${attr(s.id)}"` : ''}>\n`).join('');
  return `<!DOCTYPE html>
<html lang="${p.lang === 'zh' ? 'zh-CN' : 'en'}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(p.csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${links}<title>${attr(p.title)}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${p.nonce}" src="${attr(p.scriptUri)}"></script>
</body>
</html>
`;
}
