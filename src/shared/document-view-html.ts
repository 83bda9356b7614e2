/**
 * The document view's page, as a pure function of what only the host knows, so the host and the Chromium
 * tests serve the same page under the same CSP.
 */
import { webviewHtml } from './webview-html';

export interface DocumentViewPage {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  lang?: 'en' | 'zh';
}

/**
 * The chat view's policy without fonts and images: the rendered document is text structure only (the
 * view drops images, links' targets, styles and every attribute but its own numbering), so nothing is
 * ever loaded from it, remote or local.
 */
export function documentViewCsp(cspSource: string, nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${cspSource}`;
}

export function documentViewHtml(p: DocumentViewPage): string {
  return webviewHtml({ csp: documentViewCsp(p.cspSource, p.nonce), nonce: p.nonce, scriptUri: p.scriptUri, styles: [{ href: p.styleUri }], title: 'DocQA document', lang: p.lang });
}
