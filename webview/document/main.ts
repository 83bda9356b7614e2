// First: before any module that creates a schema (zod's fast parsers need eval, which the CSP refuses).
import '../chat/zod-jitless';
import DOMPurify from 'dompurify';
import { DOCUMENT_ATTRS, DOCUMENT_CLASS, DOCUMENT_TAGS } from '../../src/shared/document-allowlist';
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

const PURIFY = { ALLOWED_TAGS: [...DOCUMENT_TAGS], ALLOWED_ATTR: [...DOCUMENT_ATTRS], ALLOW_DATA_ATTR: false };
// Of the document's classes only the one our slides' speaker notes carry is kept (the view styles it).
DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class' && data.attrValue !== DOCUMENT_CLASS) data.keepAttr = false;
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
  // Sanitised to a string, then parsed by an inert <template>: nothing of it runs or loads on the way in.
  const template = document.createElement('template');
  template.innerHTML = DOMPurify.sanitize(m.html, PURIFY);
  body.replaceChildren(template.content);
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
