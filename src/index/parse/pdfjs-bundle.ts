/**
 * Entry of dist/pdfjs/pdf.js, pdf.js built as a bundle of its own: a third of the CLI, the extension
 * host and every ingestion worker was pdf.js, read and compiled at each start although only PDFs need
 * it. pdf-runtime.ts loads this file the first time a PDF is parsed.
 */
export * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
export * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
