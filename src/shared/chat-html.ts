/**
 * The chat view's page, as a pure function of what only the host knows (its webview's cspSource, a
 * fresh nonce, the dist URIs), so the host and the Chromium tests serve the same page under the same
 * CSP. Nothing inline: the one script carries the nonce; styles and the codicon font come from dist.
 */
import { webviewHtml } from './webview-html';

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

export function chatHtml(p: ChatPage): string {
  const styles = [{ href: p.codiconUri, id: 'vscode-codicon-stylesheet' }, { href: p.styleUri }];
  return webviewHtml({ csp: chatCsp(p.cspSource, p.nonce), nonce: p.nonce, scriptUri: p.scriptUri, styles, title: 'DocQA', lang: p.lang });
}
