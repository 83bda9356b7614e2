import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import type { Logger } from '../app/settings';
import { type CitationLocation, OpenCitationArgs, refParts } from '../shared/citation-target';
import { type DocumentViewTarget, showDocumentView } from './document-view';

const t = vscode.l10n.t;

/** A citation looked up in the index (the snapshot the answer came from, else the active one), or why not. */
async function resolve(app: DocQaApp, args: OpenCitationArgs): Promise<CitationLocation | string> {
  const parsed = OpenCitationArgs.safeParse(args);
  if (!parsed.success) return t('DocQA: Open Citation needs a citation (doc_id#block_id) or a file path with a block location.');
  if ('path' in parsed.data) return parsed.data;
  const b = await app.block(refParts(parsed.data));
  if (!b.found) return `DocQA: ${b.message}`;
  if (!b.file_exists) return t('DocQA: the cited file {0} no longer exists.', b.path);
  return { path: b.path, location: b.location, text: b.text, title: b.doc_title, content_hash: b.content_hash };
}

/**
 * `docqa.openCitation`: opens a cited block at its spot, whatever its format — the lines of a note
 * selected in the editor, a PDF page in the PDF page view, a Word paragraph, an e-book chapter position,
 * a web page's section or a slide in the document view, highlighted. The chat panel, the trace viewer
 * and the inspect panel all open citations through it (see citation-target.ts for its argument).
 */
export async function openCitationCommand(context: vscode.ExtensionContext, app: DocQaApp, log: Logger, args: unknown): Promise<void> {
  const target = await resolve(app, args as OpenCitationArgs);
  if (typeof target === 'string') {
    void vscode.window.showErrorMessage(target);
    return;
  }
  const l = target.location;
  if (l.kind === 'lines') {
    const selection = new vscode.Range(l.line_start - 1, 0, l.line_end - 1, Number.MAX_SAFE_INTEGER);
    await vscode.window.showTextDocument(vscode.Uri.file(target.path), { selection, preview: true, viewColumn: vscode.ViewColumn.One });
    return;
  }
  if (l.kind === 'page') {
    await vscode.commands.executeCommand('docqa.openPdfPage', { path: target.path, page: l.page, highlight: target.text, ...(l.boxes ? { boxes: l.boxes } : {}), ...(target.title ? { title: target.title } : {}) });
    return;
  }
  await showDocumentView(context, target as DocumentViewTarget, app.settings.ingest, log);
}
