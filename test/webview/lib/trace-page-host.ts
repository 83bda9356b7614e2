/**
 * The trace viewer outside VS Code: dist/trace.js served on 127.0.0.1 in the page the extension serves
 * (the real CSP, from src/vscode/trace-page.ts), in Debian's Chromium. What VS Code gives a webview is
 * given here: `acquireVsCodeApi` (its postMessage reaches `onMessage` in this process) and the theme's
 * `--vscode-*` variables; `post` delivers a host message the way VS Code does (a window message event).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import type { HostToTraceView } from '../../../src/shared/trace-protocol';
import { traceViewPage } from '../../../src/vscode/trace-page';
import { CHROMIUM } from '../../e2e/lib/paths';
import { CHROMIUM_ARGS } from '../../e2e/lib/workbench';
import { THEMES, type ThemeName } from './trace-themes';

const DIST = path.join(__dirname, '..', '..', '..', 'dist');

export interface ViewPage {
  page: Page;
  /** Every message the view posted, in order (already through JSON, as VS Code passes them). */
  posted: unknown[];
  /** Console warnings and errors of the page, and CSP violations. */
  problems: string[];
  post(message: HostToTraceView | Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export class TracePageServer {
  private server: http.Server | null = null;
  private browser: Browser | null = null;
  origin = '';

  async start(): Promise<this> {
    for (const f of ['trace.js', 'trace.css']) if (!fs.existsSync(path.join(DIST, f))) throw new Error(`dist/${f} is missing: run npm run build first`);
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const theme = (url.searchParams.get('theme') ?? 'dark') as ThemeName;
      if (url.pathname === '/') {
        const nonce = crypto.randomBytes(16).toString('base64');
        const vars = JSON.stringify(THEMES[theme] ?? THEMES.dark);
        // What VS Code does before the view's script runs: the API object and the theme's variables (set through the CSSOM, which the CSP allows).
        const before = `<script nonce="${nonce}">
const vars = ${vars}; for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
document.body.classList.add('vscode-${theme}');
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__viewPosted(JSON.parse(JSON.stringify(m))), getState: () => undefined, setState: () => {} });
</script>`;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(traceViewPage({ cspSource: this.origin, nonce, script: `${this.origin}/dist/trace.js`, style: `${this.origin}/dist/trace.css`, before }));
        return;
      }
      const file = url.pathname.startsWith('/dist/') ? path.join(DIST, path.basename(url.pathname)) : null;
      if (!file || !fs.existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': file.endsWith('.css') ? 'text/css' : 'text/javascript' });
      res.end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    return this;
  }

  /** A fresh page of the view; `onMessage` receives what the view posts (the host's side answers through `post`). */
  async open(o: { theme?: ThemeName; onMessage?: (m: unknown) => void; viewport?: { width: number; height: number } } = {}): Promise<ViewPage> {
    const page = await this.browser!.newPage({ viewport: o.viewport ?? { width: 1300, height: 900 } });
    const posted: unknown[] = [];
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'warning' || m.type() === 'error') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.exposeFunction('__viewPosted', (m: unknown) => {
      posted.push(m);
      o.onMessage?.(m);
    });
    await page.goto(`${this.origin}/?theme=${o.theme ?? 'dark'}`);
    return {
      page,
      posted,
      problems,
      // The root tsconfig has no DOM types: the page's window is reached through globalThis.
      post: (message) => page.evaluate((m) => (globalThis as unknown as { postMessage(m: unknown, to: string): void }).postMessage(m, '*'), message as unknown),
      close: () => page.close(),
    };
  }

  async close(): Promise<void> {
    await this.browser?.close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
