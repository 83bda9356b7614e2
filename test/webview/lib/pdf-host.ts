/**
 * The PDF page view in headless Chromium, against a scripted host (as scripted-host.ts does for the
 * chat): the built dist/pdf-view.js under the real page and CSP (pdfViewHtml), dist/ served as the
 * webview's resource origin (the CMaps and standard fonts pdf.js fetches included), `acquireVsCodeApi`
 * defined before the page runs, every message the view posts validated and recorded, host messages
 * delivered as VS Code delivers them (a MessageEvent on the window, bytes as a Uint8Array).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { pdfViewHtml } from '../../../src/shared/pdf-html';
import { type PdfHostToView, PdfViewToHost } from '../../../src/shared/pdf-protocol';
import { eventually } from '../../e2e/lib/wait';
import { ORIGIN, type Problems, instrumentPage } from './scripted-host';
import { type ThemeName, applyTheme } from './themes';

const DIST = path.join(__dirname, '..', '..', '..', 'dist');
export const CMAP_URL = `${ORIGIN}/dist/pdfjs/cmaps/`;
export const FONT_URL = `${ORIGIN}/dist/pdfjs/standard_fonts/`;

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.bcmap': 'application/octet-stream', '.pfb': 'application/octet-stream', '.ttf': 'font/ttf' };

export class PdfHost {
  readonly posted: PdfViewToHost[] = [];
  readonly invalid: unknown[] = [];
  readonly problems: Problems = { console: [], pageErrors: [], csp: [], dialogs: [] };
  /** Paths under dist/ the page fetched (the CMaps it needed, say). */
  readonly fetched: string[] = [];

  private constructor(readonly page: Page) {}

  static async open(browser: Browser, o: { theme?: ThemeName; viewport?: { width: number; height: number }; lang?: 'en' | 'zh' } = {}): Promise<PdfHost> {
    if (!fs.existsSync(path.join(DIST, 'pdf-view.js'))) throw new Error('dist/pdf-view.js is missing: run npm run build first');
    const page = await browser.newPage({ viewport: o.viewport ?? { width: 700, height: 900 } });
    const host = new PdfHost(page);
    await instrumentPage(page, host.problems, (m) => host.receive(m));
    await page.route(`${ORIGIN}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/index.html') {
        const body = pdfViewHtml({ cspSource: ORIGIN, nonce: 'bm9uY2Utd2Vidmlldy10ZXN0', scriptUri: `${ORIGIN}/dist/pdf-view.js`, styleUri: `${ORIGIN}/dist/pdf-view.css`, lang: o.lang });
        return route.fulfill({ status: 200, contentType: 'text/html', body });
      }
      // dist/ and nothing outside it, as localResourceRoots allows.
      const file = path.resolve(DIST, decodeURIComponent(url.pathname).replace(/^\/dist\//, ''));
      if (!url.pathname.startsWith('/dist/') || !file.startsWith(DIST + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return route.fulfill({ status: 404, body: '' });
      host.fetched.push(path.relative(DIST, file));
      return route.fulfill({ status: 200, contentType: TYPES[path.extname(file)] ?? 'application/octet-stream', body: fs.readFileSync(file) });
    });
    await page.goto(`${ORIGIN}/index.html`);
    if (o.theme) await applyTheme(page, o.theme);
    // The one colour the page view uses beyond the chat's theme table (VS Code's Modern themes' value).
    await page.evaluate(`document.documentElement.style.setProperty('--vscode-editor-findMatchHighlightBackground', '#ea5c0055')`);
    await eventually('the view to say ready', () => host.posted.some((m) => m.type === 'ready'), 10_000, 20);
    return host;
  }

  private receive(raw: unknown): void {
    const parsed = PdfViewToHost.safeParse(raw);
    if (parsed.success) this.posted.push(parsed.data);
    else this.invalid.push(raw);
  }

  /** Posts a protocol message; an `open` message's bytes arrive as a Uint8Array, as VS Code delivers them. */
  async send(m: PdfHostToView): Promise<void> {
    if (m.type === 'open') {
      const { data, ...rest } = m;
      await this.page.evaluate(`(() => {
        const bin = atob(${JSON.stringify(Buffer.from(data).toString('base64'))});
        const data = Uint8Array.from(bin, (c) => c.charCodeAt(0));
        window.postMessage({ ...${JSON.stringify(rest)}, data }, '*');
      })()`);
    } else {
      await this.post(m);
    }
  }

  /** Anything at all, valid or not. */
  async post(m: unknown): Promise<void> {
    await this.page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`);
  }

  shown(): Array<Extract<PdfViewToHost, { type: 'shown' }>> {
    return this.posted.filter((m): m is Extract<PdfViewToHost, { type: 'shown' }> => m.type === 'shown');
  }

  /** Waits for the n-th `shown` message (1-based) and returns it. */
  async nthShown(n: number): Promise<Extract<PdfViewToHost, { type: 'shown' }>> {
    await eventually(`shown #${n}`, () => this.shown().length >= n || this.posted.some((m) => m.type === 'failed'), 20_000, 20);
    const failed = this.posted.find((m) => m.type === 'failed');
    if (failed) throw new Error(`the view failed: ${JSON.stringify(failed)}; problems ${JSON.stringify(this.problems)}`);
    return this.shown()[n - 1]!;
  }

  clean(): Problems & { invalid: unknown[] } {
    return { ...this.problems, invalid: this.invalid };
  }
}
