import CSSMatrix from '@thednp/dommatrix';
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

let loading: Promise<PdfJs> | null = null;

/** pdf.js and its worker module: their own bundle (pdfjs-bundle.ts), else the package itself. */
async function importPdfJs(): Promise<PdfJsBundle> {
  return ownBundle<PdfJsBundle>(path.join('pdfjs', 'pdf.js')) ?? { pdfjsWorker: await import('pdfjs-dist/legacy/build/pdf.worker.mjs'), pdfjs: await import('pdfjs-dist/legacy/build/pdf.mjs') };
}

/**
 * Loads pdf.js once, on the first PDF. Text extraction needs DOMMatrix (Node has none) and the worker
 * module in-process (a bundled build cannot spawn pdf.js's own worker). pdf.js prints "Warning: Cannot
 * polyfill …" for rendering features we never use while it initialises; those lines are held back so
 * that no console output escapes the core (the CLI's --json output must stay clean).
 */
export function loadPdfJs(): Promise<PdfJs> {
  loading ??= (async () => {
    const g = globalThis as Record<string, unknown>;
    g.DOMMatrix ??= CSSMatrix;
    const { log, warn } = console;
    const quiet =
      (write: (...a: unknown[]) => void) =>
      (...args: unknown[]) => {
        if (typeof args[0] !== 'string' || !args[0].startsWith('Warning: ')) write(...args);
      };
    console.log = quiet(log);
    console.warn = quiet(warn);
    try {
      const { pdfjs, pdfjsWorker } = await importPdfJs();
      g.pdfjsWorker ??= pdfjsWorker;
      return pdfjs;
    } finally {
      console.log = log;
      console.warn = warn;
    }
  })();
  return loading;
}
