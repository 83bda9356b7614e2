// The legacy build, as in Node: VS Code 1.100's Chromium lacks some of what the modern build uses.
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import type { PDFDocumentLoadingTask, PDFDocumentProxy, RenderTask } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api';
import type { PdfMatchKind } from '../../src/shared/pdf-protocol';
import { type BlockMatch, matchBlock } from '../../src/shared/pdf-match';
import { type PageRegion, regionRects } from '../../src/shared/pdf-regions';
import { s } from './strings';

// pdf.js runs its "worker" in this thread: with the worker module on globalThis it sets up its fake
// worker and never starts a Worker (which the CSP would refuse, and which would need a worker URL).
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;

export interface ViewerUi {
  prev: HTMLButtonElement;
  next: HTMLButtonElement;
  input: HTMLInputElement;
  count: HTMLElement;
  status: HTMLElement;
  page: HTMLElement;
}

export interface OpenRequest {
  name: string;
  data: Uint8Array;
  page: number;
  highlight: string;
  boxes?: PageRegion[];
  cmap_url: string;
  standard_font_url: string;
}

export interface Shown {
  page: number;
  page_count: number;
  match: PdfMatchKind | null;
}

/** Fit width, but never so small that text is illegible nor so large that one line fills the screen. */
const MIN_SCALE = 0.75;
const MAX_SCALE = 3;

export class PdfViewer {
  private task: PDFDocumentLoadingTask | null = null;
  private doc: PDFDocumentProxy | null = null;
  private current = 1;
  /** The cited page and block: highlighted whenever that page is shown. */
  private target: { page: number; highlight: string; boxes?: PageRegion[] } = { page: 1, highlight: '' };
  /** Each render bumps it; a render that finds it changed stops (the user paged on meanwhile). */
  private seq = 0;
  private renderTask: RenderTask | null = null;
  private textLayer: pdfjs.TextLayer | null = null;
  private renderedWidth = 0;

  constructor(
    private readonly ui: ViewerUi,
    private readonly onShown: (m: Shown) => void,
    private readonly onFailed: (message: string) => void,
  ) {}

  get pageCount(): number {
    return this.doc?.numPages ?? 0;
  }

  async open(r: OpenRequest): Promise<void> {
    await this.close();
    this.status(s('loading', r.name));
    // A copy: pdf.js may transfer (detach) the buffer it is given.
    const task = pdfjs.getDocument({
      data: r.data.slice(),
      cMapUrl: r.cmap_url,
      cMapPacked: true,
      standardFontDataUrl: r.standard_font_url,
      // CVE-2024-4367, and the CSP has no 'unsafe-eval'.
      isEvalSupported: false,
      // No wasm is shipped (JPX images and ICC profiles fall back to pdf.js's own code or are skipped).
      useWasm: false,
      enableXfa: false,
      verbosity: pdfjs.VerbosityLevel.ERRORS,
    });
    this.task = task;
    try {
      this.doc = await task.promise;
    } catch (e) {
      if (this.task !== task) return;
      const name = e instanceof Error ? e.name : '';
      this.fail(name === 'PasswordException' ? s('password') : s('invalid', e instanceof Error ? e.message : String(e)));
      return;
    }
    if (this.task !== task) return;
    await this.goto(r.page, r.highlight, r.boxes);
  }

  /** Shows the cited page with its block highlighted: its regions on a scanned page (`boxes`), else its text. */
  async goto(page: number, highlight: string, boxes?: PageRegion[]): Promise<void> {
    if (!this.doc) return;
    const n = Math.min(Math.max(1, page), this.doc.numPages);
    this.target = { page: n, highlight, ...(boxes?.length && n === page ? { boxes } : {}) };
    await this.show(n, n === page ? null : s('clamped', page, this.doc.numPages, n));
  }

  /** Another page, from the toolbar or the keyboard. */
  async turn(page: number): Promise<void> {
    if (!this.doc || page < 1 || page > this.doc.numPages) return;
    await this.show(page, null);
  }

  next(): Promise<void> {
    return this.turn(this.current + 1);
  }

  previous(): Promise<void> {
    return this.turn(this.current - 1);
  }

  /** The panel was resized: draw the page again at the new width (the highlight with it). */
  async refit(): Promise<void> {
    if (this.doc && Math.abs(this.fitWidth() - this.renderedWidth) > 8) await this.show(this.current, null);
  }

  private fitWidth(): number {
    return Math.max(200, (this.ui.page.parentElement?.clientWidth ?? 800) - 24);
  }

  private async show(n: number, note: string | null): Promise<void> {
    const doc = this.doc;
    if (!doc) return;
    const seq = ++this.seq;
    this.renderTask?.cancel();
    this.textLayer?.cancel();
    this.current = n;
    this.updateNav();
    this.status(s('rendering', n));
    try {
      const page = await doc.getPage(n);
      if (seq !== this.seq) return;
      const width = this.fitWidth();
      const base = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: Math.min(MAX_SCALE, Math.max(MIN_SCALE, width / base.width)) });
      const ratio = window.devicePixelRatio || 1;
      const canvas = document.createElement('canvas');
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.setAttribute('aria-hidden', 'true');
      const layer = document.createElement('div');
      layer.className = 'textLayer';
      // CSSOM, not a style attribute: the CSP has no 'unsafe-inline'.
      this.ui.page.style.setProperty('--scale-factor', String(viewport.scale));
      this.ui.page.style.width = `${Math.floor(viewport.width)}px`;
      this.ui.page.style.height = `${Math.floor(viewport.height)}px`;
      this.ui.page.replaceChildren(canvas, layer);
      this.ui.page.dataset.page = String(n);
      this.renderedWidth = width;

      this.renderTask = page.render({ canvas, canvasContext: canvas.getContext('2d')!, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] });
      const content = await page.getTextContent();
      if (seq !== this.seq) return;
      this.textLayer = new pdfjs.TextLayer({ textContentSource: content, container: layer, viewport });
      await Promise.all([this.renderTask.promise, this.textLayer.render()]);
      if (seq !== this.seq) return;

      let match: BlockMatch | null = null;
      if (n === this.target.page && this.target.boxes) {
        // A scanned page: no text layer to find the block in, so its lines' regions (read by OCR) are drawn over the page.
        const marks = regionRects(this.target.boxes, viewport.scale, { width: viewport.width, height: viewport.height }).map((r) => {
          const mark = document.createElement('div');
          mark.className = 'region hl';
          // CSSOM, not a style attribute: the CSP has no 'unsafe-inline'.
          Object.assign(mark.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
          return mark;
        });
        const regions = document.createElement('div');
        regions.className = 'regions';
        regions.append(...marks);
        this.ui.page.append(regions);
        match = { kind: marks.length ? 'exact' : 'none', items: [] };
        marks[0]?.scrollIntoView({ block: 'center' });
      } else if (n === this.target.page && this.target.highlight.trim()) {
        // The TextLayer makes one span per item that has a `str` (marked-content markers make none), in order.
        const items = content.items.filter((it): it is TextItem => 'str' in it).map((it) => ({ str: it.str, eol: it.hasEOL, y: it.transform[5] as number }));
        match = matchBlock(items, this.target.highlight);
        const spans = this.textLayer.textDivs;
        for (const i of match.items) spans[i]?.classList.add('hl');
        const first = match.items.map((i) => spans[i]).find((el) => el?.isConnected);
        first?.scrollIntoView({ block: 'center' });
      } else {
        window.scrollTo({ top: 0 });
      }
      const words = match ? s(match.kind === 'exact' ? (this.target.boxes ? 'exactScan' : 'exact') : match.kind === 'approximate' ? 'approximate' : 'notFound', n) : s('noHighlight', n, doc.numPages);
      this.status(note ? `${note} ${words}` : words, match?.kind);
      this.onShown({ page: n, page_count: doc.numPages, match: match?.kind ?? null });
    } catch (e) {
      if (seq !== this.seq || (e instanceof Error && e.name === 'RenderingCancelledException') || (e instanceof Error && e.name === 'AbortException')) return;
      this.fail(s('renderFailed', n, e instanceof Error ? e.message : String(e)));
    }
  }

  private updateNav(): void {
    const count = this.pageCount;
    this.ui.prev.disabled = this.current <= 1;
    this.ui.next.disabled = this.current >= count;
    this.ui.input.max = String(count);
    this.ui.input.value = String(this.current);
    this.ui.input.disabled = count === 0;
    this.ui.count.textContent = s('ofPages', count);
  }

  private status(text: string, kind?: PdfMatchKind): void {
    this.ui.status.textContent = text;
    this.ui.status.dataset.match = kind ?? '';
  }

  private fail(message: string): void {
    this.status(message);
    this.ui.status.dataset.match = 'error';
    this.onFailed(message);
  }

  async close(): Promise<void> {
    this.seq++;
    this.renderTask?.cancel();
    this.textLayer?.cancel();
    const task = this.task;
    this.task = null;
    this.doc = null;
    this.ui.page.replaceChildren();
    await task?.destroy();
  }
}
