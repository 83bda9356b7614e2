/**
 * The chat webview in headless Chromium, against a scripted host speaking the real protocol: the built
 * dist/chat.js served under the real page and CSP (chatHtml), `acquireVsCodeApi` defined before it
 * runs, every message the webview posts validated with the protocol's schema and recorded, replies and
 * events posted back as VS Code would (a MessageEvent on the window). Console errors, page errors, CSP
 * violations and dialogs are recorded so a test can assert there were none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chatHtml } from '../../../src/shared/chat-html';
import { CHAT_REQUESTS, type ChatEvent, type ChatMethod, type ChatParams, type ChatResult, ChatWebviewToHost, replyError, replyOk } from '../../../src/shared/chat-protocol';
import { launchBrowser } from '../../e2e/lib/workbench';
import { CHROMIUM } from '../../e2e/lib/paths';
import { eventually } from '../../e2e/lib/wait';
import { type ThemeName, applyTheme } from './themes';

const DIST = path.join(__dirname, '..', '..', '..', 'dist');
export const ORIGIN = 'https://webview.test';

export function checkPrerequisites(): void {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the webview tests need Debian's Chromium; install it with: bash test/webview/setup.sh`);
  if (!fs.existsSync(path.join(DIST, 'chat.js'))) throw new Error('dist/chat.js is missing: run npm run build first');
}

export async function startBrowser(): Promise<Browser> {
  checkPrerequisites();
  return launchBrowser(fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-webview-')));
}

type Handler<M extends ChatMethod> = (params: ChatParams<M>, id: string) => ChatResult<M> | Promise<ChatResult<M>> | { error: { code: string; message: string } } | 'no-reply';
type Handlers = { [M in ChatMethod]?: Handler<M> };

export interface Problems {
  console: string[];
  pageErrors: string[];
  csp: string[];
  dialogs: string[];
}

/**
 * What every webview test page gets before its first script: console errors and warnings, page errors,
 * dialogs and CSP violations recorded into `problems`; `acquireVsCodeApi` posting to `receive`; and any
 * request outside ORIGIN refused and recorded.
 */
export async function instrumentPage(page: Page, problems: Problems, receive: (m: unknown) => unknown): Promise<void> {
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.console.push(m.text());
  });
  page.on('pageerror', (e) => problems.pageErrors.push(e.message));
  page.on('dialog', (d) => {
    problems.dialogs.push(d.message());
    void d.dismiss();
  });
  await page.exposeBinding('__docqaPost', (_src, m: unknown) => receive(m));
  await page.exposeBinding('__docqaCsp', (_src, v: string) => void problems.csp.push(v));
  // Runs before any page script (init scripts are outside the page's CSP, like VS Code's own preload).
  // A string, not a function: tsx would compile a function with helpers the page does not have.
  await page.addInitScript(`
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__docqaPost(JSON.parse(JSON.stringify(m))), getState: () => undefined, setState: () => undefined });
    document.addEventListener('securitypolicyviolation', (e) => window.__docqaCsp(e.violatedDirective + ' ' + e.blockedURI));
  `);
  // Any other request (a remote image, a prefetched link) is a leak: record it and refuse it.
  await page.route((u) => !u.href.startsWith(ORIGIN), (route) => {
    problems.csp.push(`request to ${route.request().url()}`);
    return route.abort();
  });
}

export class ScriptedHost {
  readonly posted: ChatWebviewToHost[] = [];
  readonly invalid: unknown[] = [];
  readonly problems: Problems = { console: [], pageErrors: [], csp: [], dialogs: [] };
  private readyBeforeInit = false;
  /** Filled only after the webview's ready, as the protocol requires. */
  private onReady: (() => Promise<void>) | null = null;

  private constructor(
    readonly page: Page,
    private handlers: Handlers,
  ) {}

  static async open(browser: Browser, o: { handlers?: Handlers; init: ChatEvent & { type: 'init' }; theme?: ThemeName; viewport?: { width: number; height: number } }): Promise<ScriptedHost> {
    const page = await browser.newPage({ viewport: o.viewport ?? { width: 420, height: 800 } });
    const host = new ScriptedHost(page, o.handlers ?? {});
    await instrumentPage(page, host.problems, (m) => host.receive(m));
    await page.route(`${ORIGIN}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/index.html') {
        const body = chatHtml({ cspSource: ORIGIN, nonce: 'bm9uY2Utd2Vidmlldy10ZXN0', scriptUri: `${ORIGIN}/dist/chat.js`, styleUri: `${ORIGIN}/dist/chat.css`, codiconUri: `${ORIGIN}/dist/codicon.css` });
        return route.fulfill({ status: 200, contentType: 'text/html', body });
      }
      const file = path.join(DIST, path.basename(url.pathname));
      if (!url.pathname.startsWith('/dist/') || !fs.existsSync(file)) return route.fulfill({ status: 404, body: '' });
      const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : file.endsWith('.ttf') ? 'font/ttf' : 'application/octet-stream';
      return route.fulfill({ status: 200, contentType: type, body: fs.readFileSync(file) });
    });
    host.onReady = async () => {
      if (o.theme) await applyTheme(page, o.theme);
      await host.send(o.init);
    };
    await page.goto(`${ORIGIN}/index.html`);
    try {
      await eventually('the webview to say ready', () => host.posted.some((m) => m.type === 'ready'), 10_000, 20);
      await page.locator('.app').waitFor({ timeout: 10_000 });
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : e}; the page reported ${JSON.stringify(host.clean())}`, { cause: e });
    }
    return host;
  }

  setHandler<M extends ChatMethod>(method: M, h: Handler<M>): void {
    (this.handlers as Record<string, unknown>)[method] = h;
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = ChatWebviewToHost.safeParse(raw);
    if (!parsed.success) {
      this.invalid.push(raw);
      return;
    }
    const m = parsed.data;
    this.posted.push(m);
    if (m.type === 'ready') {
      this.readyBeforeInit = true;
      await this.onReady?.();
      return;
    }
    if (m.type !== 'request') return;
    const h = this.handlers[m.method] as Handler<ChatMethod> | undefined;
    const out = h ? await h(m.params as never, m.id) : defaultResult(m.method);
    if (out === 'no-reply') return;
    if (out && typeof out === 'object' && 'error' in out && !Array.isArray(out)) {
      const { code, message } = out.error as { code: string; message: string };
      return this.post(replyError(m.id, code, message));
    }
    await this.post(replyOk(m.method, m.id, out as never));
  }

  async send(e: ChatEvent): Promise<void> {
    if (!this.readyBeforeInit) throw new Error('the host posts nothing before ready');
    await this.post(e);
  }

  /** Posts anything, valid or not (the hostile-message tests send garbage on purpose). */
  async post(m: unknown): Promise<void> {
    // As VS Code delivers it: a MessageEvent on the webview's window.
    await this.page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`);
  }

  requests<M extends ChatMethod>(method: M): Array<{ id: string; params: ChatParams<M> }> {
    return this.posted.filter((m): m is Extract<ChatWebviewToHost, { type: 'request' }> => m.type === 'request' && m.method === method).map((m) => ({ id: m.id, params: m.params as ChatParams<M> }));
  }

  logs(): string[] {
    return this.posted.flatMap((m) => (m.type === 'log' ? [m.message] : []));
  }

  /** Nothing went wrong in the page: no console error, no page error, no CSP violation, no dialog, nothing invalid posted. */
  clean(): Problems & { invalid: unknown[] } {
    return { ...this.problems, invalid: this.invalid };
  }
}

function defaultResult(method: ChatMethod): unknown {
  const empty: { [M in ChatMethod]: ChatResult<M> | null } = {
    ask: null,
    stop: { stopped: true },
    new_chat: {},
    list_conversations: [],
    open_conversation: null,
    delete_conversation: { deleted: true },
    block_preview: { found: false, doc_title: '', section_path: '', text: '', file_exists: false },
    open_citation: { opened: true },
    open_link: { opened: true },
    open_trace: { opened: true },
    test_connection: { ok: true, message: 'chat: ok' },
    scope_targets: { snapshot_id: null, sources: [], documents: [] },
    starting_questions: { snapshot_id: null, questions: [] },
    copy_markdown: { copied: true },
    save_note: { saved: false, message: 'not scripted' },
    run_command: {},
  };
  const v = empty[method];
  if (v === null) return { error: { code: 'not_scripted', message: `the test did not script ${method}` } };
  return CHAT_REQUESTS[method].result.parse(v);
}

/** One Chromium for a test file: launched before its tests, closed after them. */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await startBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not started');
    return browser;
  };
}
