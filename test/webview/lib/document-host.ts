/**
 * The document view in headless Chromium, against a scripted host (as pdf-host.ts does for the PDF page
 * view): the built dist/document-view.js under the real page and CSP (documentViewHtml), dist/ served as
 * the webview's resource origin, every message the view posts validated and recorded, any request
 * outside the origin refused and recorded (instrumentPage).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { documentViewHtml } from '../../../src/shared/document-view-html';
import { type DocumentHostToView, DocumentViewToHost } from '../../../src/shared/document-view-protocol';
import { eventually } from '../../e2e/lib/wait';
import { ORIGIN, type Problems, instrumentPage } from './scripted-host';
import { type ThemeName, applyTheme } from './themes';

const DIST = path.join(__dirname, '..', '..', '..', 'dist');

export class DocumentHost {
  readonly posted: DocumentViewToHost[] = [];
  readonly invalid: unknown[] = [];
  readonly problems: Problems = { console: [], pageErrors: [], csp: [], dialogs: [] };

  private constructor(readonly page: Page) {}

  static async open(browser: Browser, o: { theme?: ThemeName; viewport?: { width: number; height: number } } = {}): Promise<DocumentHost> {
    if (!fs.existsSync(path.join(DIST, 'document-view.js'))) throw new Error('dist/document-view.js is missing: run npm run build first');
    const page = await browser.newPage({ viewport: o.viewport ?? { width: 700, height: 600 } });
    const host = new DocumentHost(page);
    await instrumentPage(page, host.problems, (m) => host.receive(m));
    await page.route(`${ORIGIN}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/index.html') {
        const body = documentViewHtml({ cspSource: ORIGIN, nonce: 'bm9uY2Utd2Vidmlldy10ZXN0', scriptUri: `${ORIGIN}/dist/document-view.js`, styleUri: `${ORIGIN}/dist/document-view.css` });
        return route.fulfill({ status: 200, contentType: 'text/html', body });
      }
      const file = path.join(DIST, path.basename(url.pathname));
      if (!url.pathname.startsWith('/dist/') || !fs.existsSync(file)) {
        host.problems.csp.push(`request to ${url.href}`);
        return route.fulfill({ status: 404, body: '' });
      }
      return route.fulfill({ status: 200, contentType: file.endsWith('.js') ? 'text/javascript' : 'text/css', body: fs.readFileSync(file) });
    });
    await page.goto(`${ORIGIN}/index.html`);
    if (o.theme) await applyTheme(page, o.theme);
    await page.evaluate(`document.documentElement.style.setProperty('--vscode-editor-findMatchHighlightBackground', '#ea5c0055')`);
    await eventually('the view to say ready', () => host.posted.some((m) => m.type === 'ready'), 10_000, 20);
    return host;
  }

  private receive(raw: unknown): void {
    const parsed = DocumentViewToHost.safeParse(raw);
    if (parsed.success) this.posted.push(parsed.data);
    else this.invalid.push(raw);
  }

  /** Anything at all, valid or not, as VS Code delivers it (a MessageEvent on the window). */
  async post(m: DocumentHostToView | unknown): Promise<void> {
    await this.page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`);
  }

  shown(): Array<Extract<DocumentViewToHost, { type: 'shown' }>> {
    return this.posted.filter((m): m is Extract<DocumentViewToHost, { type: 'shown' }> => m.type === 'shown');
  }

  async nthShown(n: number): Promise<Extract<DocumentViewToHost, { type: 'shown' }>> {
    await eventually(`shown #${n}`, () => this.shown().length >= n, 10_000, 20);
    return this.shown()[n - 1]!;
  }

  clean(): Problems & { invalid: unknown[] } {
    return { ...this.problems, invalid: this.invalid };
  }
}
