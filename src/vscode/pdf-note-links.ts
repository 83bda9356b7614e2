import path from 'node:path';
import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { refParts } from '../shared/citation-target';
import { type PdfNoteLink, pdfNoteLinks } from '../shared/pdf-link';

/** The file a link's href names, from the note's folder. */
function fileOf(href: string, note: vscode.Uri): string | null {
  try {
    if (/^file:/i.test(href)) return vscode.Uri.parse(href, true).fsPath;
    return path.resolve(path.dirname(note.fsPath), ...href.split('/').map(decodeURIComponent));
  } catch {
    return null;
  }
}

class PdfLink extends vscode.DocumentLink {
  constructor(
    range: vscode.Range,
    readonly file: string,
    readonly link: PdfNoteLink,
  ) {
    super(range);
  }
}

const command = (id: string, arg: unknown) => vscode.Uri.parse(`command:${id}?${encodeURIComponent(JSON.stringify([arg]))}`);

/**
 * A saved note's PDF citation links open where the chat's chips open: DocQA's PDF page view at the
 * cited page with the block highlighted. Markdown's own link (which VS Code resolves to the file, its
 * fragment dropped) would open the file at page 1; this provider gives the same range a command
 * instead, decided when the link is followed: the block when the index still has it on that page of
 * that file, else the page the link names, unmarked.
 */
export function registerPdfNoteLinks(app: DocQaApp): vscode.Disposable {
  return vscode.languages.registerDocumentLinkProvider(
    { language: 'markdown' },
    {
      provideDocumentLinks(doc) {
        const text = doc.getText();
        return pdfNoteLinks(text).flatMap((l) => {
          const file = fileOf(l.href, doc.uri);
          if (!file) return [];
          const link = new PdfLink(new vscode.Range(doc.positionAt(l.start), doc.positionAt(l.end)), file, l);
          link.tooltip = vscode.l10n.t('Open in the DocQA PDF page view');
          return [link];
        });
      },
      async resolveDocumentLink(link: PdfLink) {
        const b = await app.block(refParts({ ref: link.link.ref })).catch(() => null);
        const same = b?.found && b.location.kind === 'page' && b.location.page === link.link.page && path.resolve(b.path) === link.file;
        link.target = same ? command('docqa.openCitation', { ref: link.link.ref }) : command('docqa.openPdfPage', { path: link.file, page: link.link.page });
        return link;
      },
    },
  );
}
