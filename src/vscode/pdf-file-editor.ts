import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { refParts } from '../shared/citation-target';
import { parsePdfFragment } from '../shared/pdf-link';
import type { HostRegistry } from './lazy-registry';
import { type PdfPageTarget, showPdfPageIn } from './pdf-page-view';

/** The custom editor's view type (package.json `customEditors`). */
export const PDF_FILE_EDITOR = 'docqa.pdfFile';

/**
 * Where a PDF opened as a file goes: the page its link names (`#page=3`), with the block its link names
 * (`&docqa=doc_id%23block_id`, as a saved note writes it: pdf-link.ts) highlighted when the knowledge
 * base still has that block of this file; page 1 and no highlight otherwise.
 */
async function targetOf(app: DocQaApp, uri: vscode.Uri): Promise<PdfPageTarget> {
  const { page, ref } = parsePdfFragment(uri.fragment);
  const target: PdfPageTarget = { path: uri.fsPath, page: page ?? 1, highlight: '' };
  if (!ref) return target;
  const b = await app.block(refParts({ ref })).catch(() => null);
  if (!b?.found || b.location.kind !== 'page' || vscode.Uri.file(b.path).fsPath !== uri.fsPath) return target;
  // The block is on another page now (the file changed since the note): the page the link names, unmarked.
  if (page !== undefined && b.location.page !== page) return target;
  return { ...target, page: b.location.page, highlight: b.text, ...(b.location.boxes ? { boxes: b.location.boxes } : {}), title: b.doc_title };
}

/**
 * DocQA's PDF page view as the editor of PDF files, so a link to a cited page — in a saved note, opened
 * from the Markdown editor or preview, both of which open a link with `vscode.open` — opens where the
 * chat's chips open, not the raw file (which VS Code cannot show). Read-only: the document is the URI.
 */
export function registerPdfFileEditor(context: vscode.ExtensionContext, app: DocQaApp, registry: HostRegistry): vscode.Disposable {
  // Filled into the stand-in the activation shell registered for the manifest's editor (lazy-registry.ts).
  return registry.customEditor(PDF_FILE_EDITOR, {
    openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
    resolveCustomEditor: async (document, panel) => showPdfPageIn(context, panel, await targetOf(app, document.uri)),
  });
}
