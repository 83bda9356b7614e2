import fs from 'node:fs';
import path from 'node:path';
import { ownBundle } from '../../common/own-bundle';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfJsBundle = typeof import('./pdfjs-bundle');

export interface PdfAssets {
  /** Folder of the bundled CMaps, ending in a separator (pdfjs requires it). */
  cMapUrl: string;
  standardFontDataUrl: string;
}

/**
 * The CMaps and standard fonts ship with us (dist/pdfjs/ in the bundle, the pdfjs-dist package when run
 * from source): without CMaps CJK text is silently dropped, and nothing may be fetched at run time.
 */
export function resolvePdfAssets(): PdfAssets {
  const candidates = [path.join(__dirname, 'pdfjs')];
  try {
    candidates.push(path.dirname(require.resolve('pdfjs-dist/package.json')));
  } catch {
    // Not resolvable inside the bundle; the bundled copy is used.
  }
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'cmaps')) && fs.existsSync(path.join(dir, 'standard_fonts'))) {
      return { cMapUrl: path.join(dir, 'cmaps') + path.sep, standardFontDataUrl: path.join(dir, 'standard_fonts') + path.sep };
    }
  }
  throw new Error(`pdf.js CMaps not found (looked in ${candidates.join(', ')})`);
}

/** pdf.js and its worker module: their own bundle (pdfjs-bundle.ts), else the package itself. No global is touched. */
export async function importPdfJs(): Promise<PdfJsBundle> {
  return ownBundle<PdfJsBundle>(path.join('pdfjs', 'pdf.js')) ?? { pdfjsWorker: await import('pdfjs-dist/legacy/build/pdf.worker.mjs'), pdfjs: await import('pdfjs-dist/legacy/build/pdf.mjs') };
}

let provider: (() => Promise<PdfJs>) | null = null;
let loading: Promise<PdfJs> | null = null;

/**
 * How this thread gets pdf.js. pdf.js needs globals (a DOMMatrix, its worker module on globalThis) and
 * prints warnings while it starts: only a worker's entry module may arrange that, in its own thread
 * (ingest-worker.ts), so the extension host that every extension shares is never touched.
 */
export function providePdfJs(load: () => Promise<PdfJs>): void {
  provider = load;
  loading = null;
}

/** pdf.js, loaded once on the first PDF, in a thread prepared for it; anywhere else it is refused. */
export function loadPdfJs(): Promise<PdfJs> {
  if (!provider) return Promise.reject(new Error('pdf.js runs only in an ingestion worker thread (see ingest-worker.ts); parse PDFs through the ingestion pool'));
  loading ??= provider();
  return loading;
}
