import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import type { PageRegion } from '../shared/block-location';
import { pdfViewHtml } from '../shared/pdf-html';
import { OpenPdfPageArgs, PDF_VIEW_MAX_BYTES, type PdfHostToView, PdfViewToHost } from '../shared/pdf-protocol';

const t = vscode.l10n.t;

export interface PdfPageTarget {
  path: string;
  /** 1-based, as in a block's `location: {kind: 'page', page}`. */
  page: number;
  /** The block's text, highlighted on that page. */
  highlight: string;
  /** Its regions on a scanned page (no text layer): highlighted instead. */
  boxes?: PageRegion[];
  /** Shown instead of the file name in the panel's title. */
  title?: string;
}

interface FileState {
  data: Uint8Array;
  mtimeMs: number;
  size: number;
}

/** One panel per file: a second citation into the same PDF turns its page instead of opening another. */
const panels = new Map<string, PdfPanel>();

const uiLang = (): 'en' | 'zh' => (vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en');

/** The file's bytes, or a sentence for the user saying why not (with the path). */
async function readPdf(file: string): Promise<FileState | string> {
  let st;
  try {
    st = await fs.stat(file);
  } catch {
    return t('DocQA: the PDF {0} does not exist (it was moved or deleted since it was indexed).', file);
  }
  if (!st.isFile()) return t('DocQA: {0} is not a file.', file);
  if (st.size > PDF_VIEW_MAX_BYTES) return t('DocQA: the PDF {0} is {1} MB; the PDF page view opens files up to {2} MB.', file, (st.size / 2 ** 20).toFixed(1), PDF_VIEW_MAX_BYTES / 2 ** 20);
  if (st.size === 0) return t('DocQA: the PDF {0} is empty.', file);
  try {
    // A plain Uint8Array, not a Buffer: VS Code posts a Buffer to the webview as its JSON form
    // ({type: 'Buffer', data: [...]}), which the view's schema rightly refuses (seen in code-server).
    const bytes = await fs.readFile(file);
    return { data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), mtimeMs: st.mtimeMs, size: st.size };
  } catch (e) {
    return t('DocQA: cannot read the PDF {0}: {1}', file, (e as NodeJS.ErrnoException).code ?? String(e));
  }
}

class PdfPanel {
  readonly panel: vscode.WebviewPanel;
  private ready = false;
  private pageCount = 0;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly file: string,
    private target: PdfPageTarget,
    private state: FileState,
    /** The panel VS Code made for the file opened as DocQA's PDF view (pdf-file-editor.ts), else a new one beside the editor. */
    given?: vscode.WebviewPanel,
  ) {
    const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
    const options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist] };
    // Not retained when hidden (memory): the view reloads, says ready again and gets the file again.
    this.panel = given ?? vscode.window.createWebviewPanel('docqa.pdfPage', this.title(target.page), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, options);
    if (given) {
      given.webview.options = options;
      given.title = this.title(target.page);
    }
    const webview = this.panel.webview;
    webview.html = pdfViewHtml({
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(18).toString('base64'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'pdf-view.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'pdf-view.css')).toString(),
      lang: uiLang(),
    });
    const sub = webview.onDidReceiveMessage((raw: unknown) => this.receive(raw));
    this.panel.onDidDispose(() => {
      sub.dispose();
      if (panels.get(file) === this) panels.delete(file);
    });
  }

  private title(page: number): string {
    return t('{0} — p. {1}', this.target.title ?? path.basename(this.file), page);
  }

  private receive(raw: unknown): void {
    const parsed = PdfViewToHost.safeParse(raw);
    if (!parsed.success) return;
    const m = parsed.data;
    if (m.type === 'ready') {
      this.ready = true;
      void this.post(this.openMessage());
    } else if (m.type === 'shown') {
      this.pageCount = m.page_count;
      this.panel.title = this.title(m.page);
    } else {
      void vscode.window.showErrorMessage(t('DocQA: cannot show {0}: {1}', this.file, m.message));
    }
  }

  private openMessage(): PdfHostToView {
    const dist = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'pdfjs');
    const uri = (dir: string) => `${this.panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, dir)).toString().replace(/\/?$/, '')}/`;
    return {
      type: 'open',
      name: path.basename(this.file),
      data: this.state.data,
      page: this.target.page,
      highlight: this.target.highlight,
      ...(this.target.boxes ? { boxes: this.target.boxes } : {}),
      ui_lang: uiLang(),
      cmap_url: uri('cmaps'),
      standard_font_url: uri('standard_fonts'),
    };
  }

  private post(m: PdfHostToView): Thenable<boolean> {
    return this.panel.webview.postMessage(m);
  }

  /** Another citation into this file: the same panel, brought forward, at the new page. */
  show(target: PdfPageTarget, state: FileState): void {
    const changed = state.mtimeMs !== this.state.mtimeMs || state.size !== this.state.size;
    this.target = target;
    this.state = state;
    this.panel.title = this.title(target.page);
    this.panel.reveal(undefined, false);
    // Not ready yet: the ready handshake sends the latest target anyway.
    if (this.ready) void this.post(changed || this.pageCount === 0 ? this.openMessage() : { type: 'goto', page: target.page, highlight: target.highlight, ...(target.boxes ? { boxes: target.boxes } : {}) });
  }
}

/**
 * Opens a PDF in DocQA's read-only PDF page view, beside the editor, at `page` with the block's text
 * highlighted (webview/pdf/). One panel per file. A missing, unreadable or oversized file is reported
 * in a notification naming the path, and nothing opens.
 */
export async function showPdfPage(context: vscode.ExtensionContext, target: PdfPageTarget): Promise<void> {
  const file = path.resolve(target.path);
  const state = await readPdf(file);
  if (typeof state === 'string') {
    void vscode.window.showErrorMessage(state);
    return;
  }
  const open = panels.get(file);
  if (open) open.show(target, state);
  else panels.set(file, new PdfPanel(context, file, target, state));
}

/**
 * The PDF page view in a panel VS Code made for it: the file opened with DocQA's PDF view (a saved
 * note's link, the Explorer). It becomes the file's panel, where later citations into the file turn
 * pages. A file that cannot be shown says why in the panel's place, in a notification, and the panel closes.
 */
export async function showPdfPageIn(context: vscode.ExtensionContext, panel: vscode.WebviewPanel, target: PdfPageTarget): Promise<void> {
  const file = path.resolve(target.path);
  const state = await readPdf(file);
  if (typeof state === 'string') {
    void vscode.window.showErrorMessage(state);
    panel.dispose();
    return;
  }
  panels.set(file, new PdfPanel(context, file, target, state, panel));
}

/** The `docqa.openPdfPage` command: `{path, page, highlight}` from the chat host (or a test), validated. */
export async function openPdfPageCommand(context: vscode.ExtensionContext, args: unknown): Promise<void> {
  const parsed = OpenPdfPageArgs.safeParse(args);
  if (!parsed.success) {
    void vscode.window.showErrorMessage(t('DocQA: Open PDF Page needs a PDF path, a page number (from 1) and the text to highlight.'));
    return;
  }
  await showPdfPage(context, parsed.data);
}
