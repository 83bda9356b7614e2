import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import type { Citation, RemovedCitation } from '../../src/shared/run-result';
import { highlight } from './highlight';
import { showControls } from '../../src/shared/inert-text';
import type { Strings } from './strings';

/**
 * An answer's Markdown as safe HTML: markdown-it with raw HTML off, links only http(s) and carried in
 * `data-url` (no href: a webview would open an href itself, without the host's confirmation), images
 * replaced by their alt text (a remote image is never loaded), citation markers turned into chips, and
 * the whole output sanitised by DOMPurify as a second line of defence.
 */
const MARKER = /【\s*来源\s*[:：]\s*([^】]*)】/g;
const SLOT = /\uE000(\d+)\uE001/g;
const PRIVATE = /[\uE000\uE001]/g;
const isWeb = (u: string) => /^https?:\/\/[^\s]/i.test(u);

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, highlight: (code, lang) => highlight(code, lang) });
md.validateLink = (url) => isWeb(url.trim());
md.renderer.rules.link_open = (tokens, idx) => {
  const url = String(tokens[idx]!.attrGet('href') ?? '');
  return `<a class="ext-link" data-url="${md.utils.escapeHtml(url)}" tabindex="0" role="link">`;
};
md.renderer.rules.image = (tokens, idx, _o, env) => `<span class="img-blocked">${md.utils.escapeHtml((env as unknown as RenderEnv).strings.imageBlocked(tokens[idx]!.content))}</span>`;

DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'data-url' && !isWeb(String(data.attrValue))) data.keepAttr = false;
});
const PURIFY = {
  FORBID_TAGS: ['img', 'style', 'svg', 'math', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed', 'video', 'audio', 'source', 'picture', 'link', 'meta', 'base'],
  FORBID_ATTR: ['style', 'href', 'src', 'srcset', 'action', 'formaction', 'xlink:href', 'background', 'poster'],
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

export interface CiteView {
  /** Verified citations in chip order, or null while the answer is unverified. */
  verified: readonly Citation[] | null;
  removed: readonly RemovedCitation[];
}

interface RenderEnv {
  strings: Strings;
}

const esc = (s: string) => md.utils.escapeHtml(showControls(s));
const lastPart = (p: string) => p.split(' > ').pop()!.trim();

function chip(ref: string, cites: CiteView, s: Strings): string {
  if (cites.verified === null) return `<span class="cite pending" title="${esc(s.pendingCite)}"><span class="codicon codicon-loading"></span>${esc(ref)}</span>`;
  const n = cites.verified.findIndex((c) => c.ref === ref);
  const c = cites.verified[n];
  if (!c) return `<span class="cite removed">${esc(s.removedCite)}</span>`;
  const section = lastPart(c.section_path);
  return `<button type="button" class="chip" data-ref="${esc(ref)}" aria-label="${esc(s.chipLabel(n + 1, c.doc_title, section))}"><span class="chip-n">${n + 1}</span> · ${esc(c.doc_title)} · ${esc(section)}</button>`;
}

/** One Markdown block (or the streaming tail) as sanitised HTML. */
export function renderBlock(text: string, cites: CiteView, s: Strings): string {
  const refs: string[][] = [];
  const src = showControls(text.replace(PRIVATE, '')).replace(MARKER, (_m, list: string) => {
    refs.push(list.split(/[,，;；、\s]+/).map((r) => r.trim()).filter(Boolean));
    return `\uE000${refs.length - 1}\uE001`;
  });
  const html = md.render(src, { strings: s } satisfies RenderEnv).replace(SLOT, (_m, i: string) => refs[Number(i)]!.map((r) => chip(r, cites, s)).join(''));
  return DOMPurify.sanitize(html, PURIFY);
}

export interface Split {
  text: string;
  /** The finished blocks: they never change again while the text only grows. */
  done: string[];
  /** Where the unfinished tail starts in `text`. */
  tailStart: number;
  tail: string;
}

/**
 * The text cut into Markdown blocks at blank lines outside code fences: every block but the last is
 * finished and never changes again, so only the tail re-renders while an answer streams. Given the
 * previous split of a prefix of this text, only the old tail onwards is scanned again (a streamed answer
 * only grows), so a delta costs the tail's length, not the answer's.
 */
export function splitBlocks(text: string, prev?: Split): Split {
  const resume = prev && text.length >= prev.text.length && text.startsWith(prev.text);
  const done = resume ? prev.done.slice() : [];
  let start = resume ? prev.tailStart : 0;
  let fence: string | null = null;
  let pos = start;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(pos, end);
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === null) fence = f[1]!;
      else if (f[1]!.startsWith(fence) && line.trim().length === f[1]!.length) fence = null;
    } else if (fence === null && line.trim() === '' && end > start) {
      const block = text.slice(start, pos);
      if (block.trim()) done.push(block);
      start = end + 1;
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  return { text, done, tailStart: start, tail: text.slice(start) };
}
