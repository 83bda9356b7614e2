/**
 * Entry of dist/ocr/ocr.js, OCR built as a bundle of its own: tesseract.js's worker script (which the
 * library itself runs in a thread of its own; DocQA runs it in its ingestion worker, see ocr-runtime.ts),
 * Tesseract's WebAssembly build (its JavaScript half; the .wasm is read from dist/ocr/) and pako to
 * unpack the language data. ocr-runtime.ts loads this file on the first page OCR reads.
 */
export * as tesseractWorker from 'tesseract.js/src/worker-script/index.js';
export { default as TesseractCore } from 'tesseract.js-core/tesseract-core-simd-lstm.js';
export { ungzip } from 'pako';
