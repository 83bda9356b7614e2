/**
 * The PDF page view's page, as a pure function of what only the host knows (its webview's cspSource, a
 * fresh nonce, the dist URIs), so the host and the Chromium tests serve the same page under the same CSP.
 */
import { webviewHtml } from './webview-html';

export interface PdfViewPage {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  lang?: 'en' | 'zh';
}

export function pdfViewCsp(cspSource: string, nonce: string): string {
  // The chat view's policy, plus two things pdf.js needs: connect-src, because it fetch()es the CMaps
  // (CJK text) and the standard fonts from dist/pdfjs/ (webview resources, nothing remote); and blob: images,
  // for the images a page may carry. Embedded fonts are loaded from bytes (FontFace), which font-src does
  // not govern; no worker is started (the worker module is in the bundle), and eval is off
  // (isEvalSupported: false), so neither worker-src nor 'unsafe-eval' is needed.
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${cspSource}; font-src ${cspSource}; img-src ${cspSource} data: blob:; connect-src ${cspSource}`;
}

export function pdfViewHtml(p: PdfViewPage): string {
  return webviewHtml({ csp: pdfViewCsp(p.cspSource, p.nonce), nonce: p.nonce, scriptUri: p.scriptUri, styles: [{ href: p.styleUri }], title: 'DocQA PDF', lang: p.lang });
}
