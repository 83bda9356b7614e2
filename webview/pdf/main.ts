// First: before any module that creates a schema (zod's fast parsers need eval, which the CSP refuses).
import '../chat/zod-jitless';
import { PdfHostToView, type PdfViewToHost } from '../../src/shared/pdf-protocol';
import { setLang, s } from './strings';
import { PdfViewer, type ViewerUi } from './viewer';

/**
 * DocQA's read-only PDF page view: a toolbar (previous, page N of M, next, the status line) over one
 * page drawn by pdf.js with its text layer, the cited block's spans highlighted. Everything the host
 * sends is validated; the file name and the PDF's text are only ever set as text, never as markup.
 */
interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const post = (m: PdfViewToHost) => api.postMessage(m);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: Node[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function buildUi(root: HTMLElement): ViewerUi & { name: HTMLElement; toolbar: HTMLElement } {
  const prev = el('button', { type: 'button', className: 'nav prev', disabled: true });
  const next = el('button', { type: 'button', className: 'nav next', disabled: true });
  const input = el('input', { type: 'number', className: 'page-input', min: '1', value: '1', disabled: true });
  const count = el('span', { className: 'page-count' });
  const name = el('span', { className: 'file-name' });
  const status = el('div', { className: 'status', role: 'status' });
  status.setAttribute('aria-live', 'polite');
  const toolbar = el('div', { className: 'toolbar', role: 'toolbar' }, prev, input, count, next, name);
  const page = el('div', { className: 'page' });
  root.append(el('header', { className: 'bar' }, toolbar, status), el('main', { className: 'viewer' }, page));
  return { prev, next, input, count, status, page, name, toolbar };
}

function label(ui: ReturnType<typeof buildUi>): void {
  ui.prev.textContent = '‹';
  ui.next.textContent = '›';
  ui.prev.title = ui.prev.ariaLabel = s('previous');
  ui.next.title = ui.next.ariaLabel = s('next');
  ui.input.ariaLabel = s('pageLabel');
  ui.toolbar.ariaLabel = s('toolbar');
}

const ui = buildUi(document.getElementById('root')!);
label(ui);
const viewer = new PdfViewer(
  ui,
  (m) => post({ type: 'shown', ...m }),
  (message) => post({ type: 'failed', message }),
);

ui.prev.addEventListener('click', () => void viewer.previous());
ui.next.addEventListener('click', () => void viewer.next());
ui.input.addEventListener('change', () => {
  const n = Number(ui.input.value);
  if (Number.isInteger(n)) void viewer.turn(n);
});
// The page is fit to the width, so the arrow keys are free for paging (not while typing a page number).
document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === 'ArrowRight') void viewer.next();
  else if (e.key === 'ArrowLeft') void viewer.previous();
  else return;
  e.preventDefault();
});
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => void viewer.refit(), 150);
}).observe(document.querySelector('main.viewer')!);

window.addEventListener('message', (e: MessageEvent) => {
  const parsed = PdfHostToView.safeParse(e.data);
  if (!parsed.success) return;
  const m = parsed.data;
  if (m.type === 'open') {
    setLang(m.ui_lang);
    label(ui);
    ui.name.textContent = m.name;
    void viewer.open(m);
  } else {
    void viewer.goto(m.page, m.highlight, m.boxes);
  }
});
// Only now, with the listener in place: the host posts nothing before it.
post({ type: 'ready' });
