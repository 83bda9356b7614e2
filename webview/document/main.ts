// First: before any module that creates a schema (zod's fast parsers need eval, which the CSP refuses).
import '../chat/zod-jitless';
import DOMPurify from 'dompurify';
import { matchElements } from '../../src/shared/document-match';
import { DocumentHostToView, type DocumentTarget, type DocumentViewToHost } from '../../src/shared/document-view-protocol';
import { setLang, s } from './strings';

/**
 * DocQA's read-only document view: a Word file, a web page's main content, an e-book chapter or a deck's
 * slides, as DocQA read them, the cited block's elements highlighted and scrolled into view. The HTML the
 * host sends is sanitised down to text structure: no script, image, link target, style or attribute but
 * the element numbers survives, so a hostile document can neither run nor load anything. Names and
 * titles are set as text only.
 */
interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const post = (m: DocumentViewToHost) => api.postMessage(m);

const TAGS = ['section', 'article', 'div', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'blockquote', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 's', 'sub', 'sup', 'small', 'mark', 'span', 'br', 'hr', 'figure', 'figcaption', 'address', 'main', 'header', 'footer', 'aside', 'abbr', 'cite', 'q', 'kbd', 'samp', 'var', 'del', 'ins', 'ruby', 'rt', 'rp'];
const PURIFY = { ALLOWED_TAGS: TAGS, ALLOWED_ATTR: ['data-docqa-el', 'data-docqa-part', 'colspan', 'rowspan', 'start', 'class'], ALLOW_DATA_ATTR: false, RETURN_DOM_FRAGMENT: true as const };
// Of the document's classes only the one our slides' speaker notes carry is kept (the view styles it).
DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class' && data.attrValue !== 'docqa-notes') data.keepAttr = false;
});

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), props);
}

const root = document.getElementById('root')!;
const header = el('header', { className: 'bar' });
const title = el('h1', { className: 'doc-title' });
const meta = el('div', { className: 'meta' });
const status = el('div', { className: 'status', role: 'status' });
status.setAttribute('aria-live', 'polite');
const changed = el('div', { className: 'changed' });
header.append(title, meta, status, changed);
const body = el('main', { className: 'document', tabIndex: -1 });
root.append(header, body);

function show(m: Extract<DocumentHostToView, { type: 'open' }>): void {
  setLang(m.ui_lang);
  title.textContent = m.title;
  title.title = m.name;
  meta.textContent = m.target.kind === 'chapter' ? s('chapterOf', m.target.part, m.parts) : m.target.kind === 'slide' ? s('slides', m.parts) : m.name;
  changed.textContent = m.changed ? s('changed') : '';
  const fragment = DOMPurify.sanitize(m.html, PURIFY) as unknown as DocumentFragment;
  body.replaceChildren(fragment);
  highlight(m.target);
}

function highlight(t: DocumentTarget): void {
  const part = body.querySelector(`[data-docqa-part="${t.part}"]`);
  if (!part) {
    status.dataset.match = 'none';
    status.textContent = s('gone', t.label);
    post({ type: 'shown', part: t.part, first: 0, last: 0, match: 'none' });
    return;
  }
  // Only this part's own numbers: a slide's elements, not the next slide's.
  const elements = Array.from(part.querySelectorAll<HTMLElement>('[data-docqa-el]')).filter((e) => e.closest('[data-docqa-part]') === part);
  const found = matchElements(elements.map((e) => ({ n: Number(e.dataset.docqaEl), text: e.textContent ?? '' })), t.first, t.last, t.text);
  const marked = elements.filter((e) => {
    const n = Number(e.dataset.docqaEl);
    return n >= found.first && n <= found.last;
  });
  for (const e of marked) e.classList.add('hl');
  status.dataset.match = found.match;
  status.textContent = s(found.match, t.label);
  const target = marked[0] ?? (part as HTMLElement);
  target.scrollIntoView({ block: 'center' });
  post({ type: 'shown', part: t.part, first: found.first, last: found.last, match: found.match });
}

window.addEventListener('message', (e: MessageEvent) => {
  const parsed = DocumentHostToView.safeParse(e.data);
  if (parsed.success) show(parsed.data);
});
post({ type: 'ready' });
