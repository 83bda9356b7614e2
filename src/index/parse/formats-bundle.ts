import type { DocumentParser } from './parser';

/**
 * Entry of dist/formats.js: the parsers of the rendered formats (src/index/parse/rendered/<format>.ts,
 * each exporting `parser`) with their libraries (mammoth, linkedom, Readability, yauzl: 1.8 MB), built
 * as a bundle of their own as pdf.js is, so the CLI, the extension host and each ingestion worker start
 * without reading and compiling them. esbuild bundles every file of rendered/ for this require (a glob
 * import), so a format added there needs no line here; rendered-formats.ts loads this file on the first
 * Word file, web page, e-book or deck.
 */
export function renderedParser(format: string): DocumentParser {
  if (!/^[a-z][a-z0-9-]*$/.test(format)) throw new Error(`not a format name: ${format}`);
  // A require on a template is what esbuild bundles as a glob (every file of rendered/); an import() would make parsing wait a turn.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(`./rendered/${format}.ts`) as { parser: DocumentParser }).parser;
}

/** What a rendered document may hold on its way to the view (render-clean.ts): linkedom work, so it lives here too. */
export { cleanRendered } from './render-clean';
