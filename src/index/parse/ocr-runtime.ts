import fs from 'node:fs';
import path from 'node:path';
import { ownBundle } from '../../common/own-bundle';

type OcrBundle = typeof import('./ocr-bundle');

/** The languages OCR reads, in the order Tesseract is given them. */
export const OCR_LANGUAGES = ['eng', 'chi_sim'] as const;

export interface OcrAssets {
  /** Tesseract's WebAssembly (the SIMD, LSTM-only build). */
  wasm: string;
  /** Each language's gzipped `.traineddata` (the `best_int` models). */
  languages: Record<(typeof OCR_LANGUAGES)[number], string>;
}

/**
 * Tesseract's WebAssembly and the language data ship with us (dist/ocr/ in the bundle, the npm packages
 * when run from source): nothing is fetched at run time, and tesseract.js is never given a URL.
 */
export function resolveOcrAssets(): OcrAssets {
  const bundled = path.join(__dirname, 'ocr');
  if (fs.existsSync(path.join(bundled, 'tesseract-core-simd-lstm.wasm'))) {
    return { wasm: path.join(bundled, 'tesseract-core-simd-lstm.wasm'), languages: { eng: path.join(bundled, 'eng.traineddata.gz'), chi_sim: path.join(bundled, 'chi_sim.traineddata.gz') } };
  }
  const pkg = (name: string) => path.dirname(require.resolve(`${name}/package.json`));
  const data = (lang: string) => path.join(pkg(`@tesseract.js-data/${lang}`), '4.0.0_best_int', `${lang}.traineddata.gz`);
  return { wasm: path.join(pkg('tesseract.js-core'), 'tesseract-core-simd-lstm.wasm'), languages: { eng: data('eng'), chi_sim: data('chi_sim') } };
}

/** tesseract.js's worker script and Tesseract's core: their own bundle (ocr-bundle.ts), else the packages themselves. */
export async function importOcr(): Promise<OcrBundle> {
  return ownBundle<OcrBundle>(path.join('ocr', 'ocr.js')) ?? (await import('./ocr-bundle'));
}

/** Tesseract started in this thread (ocr-engine.ts): one image in, its TSV out (a row per page, block, paragraph, line and word). */
export interface OcrEngine {
  /** Reads one image (a binary PGM, see gray-image.ts). */
  recognize(image: Uint8Array): Promise<string>;
}

/**
 * OCR needed more memory than the worker may use (ingest.max_worker_memory_mb; see
 * wasm-memory-limit.ts): the document's failure, `out_of_memory`. The engine is spent after it (Tesseract
 * stopped mid-page): its worker is replaced once its jobs are done.
 */
export class OcrMemoryError extends Error {
  override readonly name = 'OcrMemoryError';
}

let provider: (() => Promise<OcrEngine>) | null = null;
let starting: Promise<OcrEngine> | null = null;

/**
 * How this thread gets its OCR engine. tesseract.js's worker script sets a global (regenerator's runtime)
 * and keeps Tesseract's state in its module: only a worker's entry module may arrange that, in its own
 * thread (ingest-worker.ts), as for pdf.js.
 */
export function provideOcr(start: () => Promise<OcrEngine>): void {
  provider = start;
  starting = null;
}

/** The engine, started once on the first page OCR reads, in a thread prepared for it; anywhere else it is refused. */
export function loadOcr(): Promise<OcrEngine> {
  if (!provider) return Promise.reject(new Error('OCR runs only in an ingestion worker thread (see ingest-worker.ts)'));
  starting ??= provider();
  return starting;
}
