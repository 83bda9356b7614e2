/**
 * The fragment of a link to a cited PDF page: `page=3` (the PDF open parameter every viewer reads),
 * then `docqa=` and the cited block's ref (`doc_id#block_id`, encoded), which other viewers ignore and
 * DocQA's PDF page view, opening the file from such a link (a saved note's), looks up to highlight the
 * block. Pure: the notes write it (src/app/notes), the extension reads it (pdf-file-editor.ts, and
 * pdf-note-links.ts, which gives a note's links their command: VS Code drops such a fragment).
 */
export function pdfFragment(page: number, ref?: string): string {
  return `page=${page}${ref ? `&docqa=${encodeURIComponent(ref)}` : ''}`;
}

const REF = /^[^#\s]+#[^#\s]+$/;

/** The page (from 1) and the block ref a fragment names; what it does not name, or names badly, is absent. */
export function parsePdfFragment(fragment: string): { page?: number; ref?: string } {
  const out: { page?: number; ref?: string } = {};
  for (const part of fragment.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).toLowerCase();
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1));
    } catch {
      continue;
    }
    if (key === 'page' && /^\d{1,6}$/.test(value) && Number(value) >= 1) out.page = Number(value);
    else if (key === 'docqa' && REF.test(value)) out.ref = value;
  }
  return out;
}

/** A saved note's link to a cited PDF page: where its target is in the text, and what it names. */
export interface PdfNoteLink {
  /** Offsets of the link's target (`../p.pdf#page=3&docqa=…`) in the text. */
  start: number;
  end: number;
  /** The target's path as written (relative to the note, percent-encoded, or a file:// URL). */
  href: string;
  page: number;
  ref: string;
}

// `](target)` whose target is a .pdf with a fragment naming a DocQA block (pdf-link.ts).
const LINK = /\]\(\s*<?([^\s()<>#]+\.pdf)#([^\s()<>]*)>?\s*\)/gi;

/** The PDF citation links of a Markdown text (pure: the tests call it). Links without `docqa=` and a page are left to Markdown. */
export function pdfNoteLinks(text: string): PdfNoteLink[] {
  const out: PdfNoteLink[] = [];
  for (const m of text.matchAll(LINK)) {
    const { page, ref } = parsePdfFragment(m[2]!);
    if (page === undefined || ref === undefined) continue;
    const start = m.index + m[0].indexOf(m[1]!);
    out.push({ start, end: start + m[1]!.length + 1 + m[2]!.length, href: m[1]!, page, ref });
  }
  return out;
}
