import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../app/settings';
import { renderInWorker } from '../index/ingest/render-file';
import type { BlockLocation } from '../shared/block-location';
import type { IngestOptions } from '../index/model';
import type { CitationLocation } from '../shared/citation-target';
import { documentViewHtml } from '../shared/document-view-html';
import { DOCUMENT_VIEW_MAX_HTML, type DocumentHostToView, type DocumentTarget, DocumentViewToHost } from '../shared/document-view-protocol';

const t = vscode.l10n.t;

type RenderedLocation = Extract<BlockLocation, { kind: 'paragraphs' | 'chapter' | 'slide' }>;
export type DocumentViewTarget = CitationLocation & { location: RenderedLocation };

const uiLang = (): 'en' | 'zh' => (vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en');

/** The location in the person's language: "¶ 12", "chapter 3 ¶ 2", "slide 4". */
export function viewLabel(l: RenderedLocation): string {
  const para = l.first === l.last ? `${l.first}` : `${l.first}–${l.last}`;
  if (l.kind === 'chapter') return t('chapter {0}, ¶ {1}', l.chapter, para);
  if (l.kind === 'slide') return t('slide {0}', l.slide);
  return t('¶ {0}', para);
}

function viewTarget(l: RenderedLocation, text: string): DocumentTarget {
  return { kind: l.kind, part: l.kind === 'chapter' ? l.chapter : l.kind === 'slide' ? l.slide : 1, first: l.first, last: l.last, text, label: viewLabel(l) };
}

/** One panel per file: a second citation into the same document shows it again at the new spot. */
const panels = new Map<string, DocumentPanel>();

class DocumentPanel {
  readonly panel: vscode.WebviewPanel;
  private ready = false;

  constructor(
    context: vscode.ExtensionContext,
    file: string,
    private open: DocumentHostToView,
  ) {
    const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel('docqa.documentView', this.title(), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [dist],
      // Not retained when hidden: it says ready again when shown and gets the latest target.
    });
    const webview = this.panel.webview;
    webview.html = documentViewHtml({
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(18).toString('base64'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'document-view.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'document-view.css')).toString(),
      lang: uiLang(),
    });
    const sub = webview.onDidReceiveMessage((raw: unknown) => {
      const m = DocumentViewToHost.safeParse(raw);
      if (!m.success) return;
      if (m.data.type === 'ready') {
        this.ready = true;
        void webview.postMessage(this.open);
      }
    });
    this.panel.onDidDispose(() => {
      sub.dispose();
      if (panels.get(file) === this) panels.delete(file);
    });
  }

  private title(): string {
    return `${this.open.title} — ${this.open.target.label}`;
  }

  show(open: DocumentHostToView): void {
    this.open = open;
    this.panel.title = this.title();
    this.panel.reveal(undefined, false);
    if (this.ready) void this.panel.webview.postMessage(open);
  }
}

/** The file, rendered in an ingestion worker, or a sentence for the person saying why not. */
async function render(target: DocumentViewTarget, options: IngestOptions, log: Logger): Promise<DocumentHostToView | string> {
  const file = path.resolve(target.path);
  const st = await fs.stat(file).catch(() => null);
  if (!st) return t('DocQA: the file {0} does not exist (it was moved or deleted since it was indexed).', file);
  if (!st.isFile()) return t('DocQA: {0} is not a file.', file);
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: t('DocQA: opening {0}…', path.basename(file)) }, () =>
    renderInWorker(file, target.location, options, undefined, (l) => log.debug(`document view: ${l.text}`)),
  );
  if (!r.ok) return t('DocQA: cannot show {0}: {1}', file, r.message);
  if (r.html.length > DOCUMENT_VIEW_MAX_HTML) return t('DocQA: {0} is too large to show in the document view.', file);
  return {
    type: 'open',
    name: path.basename(file),
    title: target.title ?? path.basename(file),
    html: r.html,
    parts: Math.max(1, r.parts),
    target: viewTarget(target.location, target.text),
    changed: target.content_hash !== undefined && target.content_hash !== r.content_hash,
    ui_lang: uiLang(),
  };
}

/**
 * Opens a Word file, web page, e-book or slide deck in DocQA's read-only document view beside the
 * editor, at the block's location with it highlighted (webview/document/). The file is rendered in an
 * ingestion worker under the ingestion limits. A missing or unreadable file is reported in a
 * notification naming it, and nothing opens.
 */
export async function showDocumentView(context: vscode.ExtensionContext, target: DocumentViewTarget, options: IngestOptions, log: Logger): Promise<void> {
  const file = path.resolve(target.path);
  const open = await render(target, options, log);
  if (typeof open === 'string') {
    void vscode.window.showErrorMessage(open);
    return;
  }
  const existing = panels.get(file);
  if (existing) existing.show(open);
  else panels.set(file, new DocumentPanel(context, file, open));
}
