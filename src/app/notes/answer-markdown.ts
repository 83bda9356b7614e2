import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BlockLocation } from '../../shared/block-location';
import type { Conversation, ConversationTurn } from '../../shared/conversation';
import { RELEASE_STATES } from '../../shared/release-states';
import { pdfFragment } from '../../shared/pdf-link';

/**
 * An answer kept outside DocQA: Markdown whose citations are ordinary links to the cited spot — a text
 * file at its lines (`#L12-L15`, which VS Code's Markdown links and preview open at that line, as GitHub
 * does), a PDF at its page (`#page=3`, the PDF open-parameters form, then `&docqa=` and the block's ref:
 * in VS Code the link opens DocQA's PDF page view at that page with the block highlighted, pdf-link.ts). Links are relative to the folder
 * the note is saved in (so notes and sources can move together), or `file://` URLs when there is no
 * such folder (the clipboard). Pure: the spots come from the caller's block lookup.
 */

/** Where a cited block is, as the lookup found it (null: it is in no snapshot any more). */
export interface CitedSpot {
  doc_title: string;
  section_path: string;
  path: string;
  location: BlockLocation;
  /** The cited block's ref (doc_id#block_id): a PDF link carries it for DocQA's page view to highlight. */
  ref?: string;
}

export interface NoteOptions {
  /** The folder the note is written to (links relative to it), or null for file:// links. */
  linkBase: string | null;
  lang: 'zh' | 'en';
  /** When the note was made (ISO), written under it. */
  madeAt: string;
}

const MARKER = /【\s*来源\s*[:：]\s*([^】]*)】/g;
const lastPart = (p: string) => p.split(' > ').pop()!.trim();

/** A link target for a file: relative with `/` and each segment percent-encoded, or a file:// URL. */
export function fileLink(file: string, linkBase: string | null): string {
  if (linkBase === null) return pathToFileURL(file).href;
  const rel = path.relative(linkBase, file).split(path.sep).map(encodeURIComponent).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

export function spotLink(spot: CitedSpot, linkBase: string | null): string {
  const l = spot.location;
  // Lines and PDF pages have URL fragments editors and viewers understand; a paragraph, chapter or slide
  // has none, so the link opens the file and the link text says where (`where`).
  const at = l.kind === 'lines' ? `#L${l.line_start}${l.line_end > l.line_start ? `-L${l.line_end}` : ''}` : l.kind === 'page' ? `#${pdfFragment(l.page, spot.ref)}` : '';
  return `${fileLink(spot.path, linkBase)}${at}`;
}

/** Where in its file a block is, in words. */
function spotAt(l: CitedSpot['location'], lang: 'zh' | 'en'): string {
  const range = (first: number, last: number) => (last > first ? `${first}–${last}` : `${first}`);
  switch (l.kind) {
    case 'lines':
      return lang === 'zh' ? `第 ${l.line_start}–${l.line_end} 行` : `lines ${l.line_start}–${l.line_end}`;
    case 'page':
      return lang === 'zh' ? `第 ${l.page} 页` : `p. ${l.page}`;
    case 'paragraphs':
      return lang === 'zh' ? `第 ${range(l.first, l.last)} 段` : `¶ ${range(l.first, l.last)}`;
    case 'chapter':
      return lang === 'zh' ? `第 ${l.chapter} 章第 ${range(l.first, l.last)} 段` : `chapter ${l.chapter}, ¶ ${range(l.first, l.last)}`;
    case 'slide':
      return lang === 'zh' ? `第 ${l.slide} 张幻灯片` : `slide ${l.slide}`;
  }
}

/** Markdown link text cannot hold a bare `]` or a line break. */
const linkText = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/([\\[\]])/g, '\\$1');

function where(spot: CitedSpot, lang: 'zh' | 'en'): string {
  const section = lastPart(spot.section_path);
  return `${spot.doc_title}${section ? ` § ${section}` : ''}, ${spotAt(spot.location, lang)}`;
}

const WORDS = {
  en: { sources: 'Sources', gone: 'no longer in the knowledge base', noAnswer: '(no answer was released)', scope: 'Asked about', made: 'Saved from DocQA', status: 'Release' },
  zh: { sources: '来源', gone: '已不在知识库中', noAnswer: '（没有发布回答）', scope: '提问范围', made: '保存自 DocQA', status: '发布状态' },
};

/**
 * One question and its released answer: each verified citation numbered in order of the answer's
 * citations, a marker becoming `[n](link)` and the list of sources after the answer.
 */
export function turnMarkdown(turn: ConversationTurn, spots: ReadonlyMap<string, CitedSpot | null>, o: NoteOptions, heading = '#'): string {
  const w = WORDS[o.lang];
  const r = turn.result;
  const cites = r?.citations ?? [];
  const number = new Map(cites.map((c, i) => [c.ref, i + 1]));
  const link = (ref: string) => {
    const n = number.get(ref);
    if (n === undefined) return '';
    const spot = spots.get(ref);
    return spot ? `[${n}](${spotLink(spot, o.linkBase)})` : `[${n}]`;
  };
  const answer = (r?.answer ?? '').replace(MARKER, (_m, list: string) => {
    const refs = list.split(/[,，;；、\s]+/).map((x) => x.trim()).filter(Boolean);
    const links = refs.map(link).filter(Boolean);
    return links.length ? ` ${links.join(' ')}` : '';
  });
  const out = [`${heading} ${linkText(turn.question.trim())}`, ''];
  if (turn.scope) out.push(`*${w.scope}: ${turn.scope.documents.map((d) => linkText(d.title)).join(', ')}*`, '');
  out.push(answer.trim() || w.noAnswer, '');
  if (cites.length) {
    out.push(`**${w.sources}**`, '');
    cites.forEach((c, i) => {
      const spot = spots.get(c.ref);
      out.push(spot ? `${i + 1}. [${linkText(where(spot, o.lang))}](${spotLink(spot, o.linkBase)})` : `${i + 1}. ${linkText(c.doc_title)} § ${linkText(lastPart(c.section_path))} (${w.gone})`);
    });
    out.push('');
  }
  if (r && RELEASE_STATES[r.release.status].noted) out.push(`*${w.status}: ${r.release.status}${r.release.reason ? ` · ${r.release.reason}` : ''}*`, '');
  return out.join('\n');
}

/** A note of one answer, with where it came from. */
export function noteMarkdown(turn: ConversationTurn, spots: ReadonlyMap<string, CitedSpot | null>, o: NoteOptions): string {
  return `${turnMarkdown(turn, spots, o)}---\n*${WORDS[o.lang].made} · ${o.madeAt}*\n`;
}

/** A whole conversation: its title, then each answered question as a section. */
export function conversationMarkdown(c: Conversation, spots: ReadonlyMap<string, CitedSpot | null>, o: NoteOptions): string {
  const turns = c.turns.filter((t) => t.state === 'done' || t.result);
  return `# ${linkText(c.title)}\n\n${turns.map((t) => turnMarkdown(t, spots, o, '##')).join('\n')}---\n*${WORDS[o.lang].made} · ${o.madeAt}*\n`;
}

/** A file name for a note: the question's words (nothing a file system refuses), bounded, `.md`. */
export function noteFileName(title: string, madeAt: string): string {
  const words = [...title.normalize('NFC')]
    // Control characters, and what file systems or Markdown links refuse in a name.
    .map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || '\\/:*?"<>|#%【】[]'.includes(c) ? ' ' : c))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  const short = [...words].slice(0, 60).join('').replace(/[ .]+$/, '') || 'DocQA note';
  return `${madeAt.slice(0, 10)} ${short}.md`;
}
