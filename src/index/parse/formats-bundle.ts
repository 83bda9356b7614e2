/**
 * Entry of dist/formats.js, the parsers of the rendered formats built as a bundle of their own with their
 * libraries (mammoth, linkedom, Readability, yauzl: 1.8 MB), as pdf.js is: the CLI, the extension host
 * and each ingestion worker start without reading and compiling them; rendered-formats.ts loads this
 * file the first time a Word file, web page, e-book or deck is parsed or rendered.
 */
export { docxParser } from './docx';
export { epubParser } from './epub';
export { htmlParser } from './html';
export { pptxParser } from './pptx';
