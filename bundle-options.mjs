// The esbuild options of the Node bundles (extension host, CLI, workers, the lazily loaded parser
// bundles), apart from esbuild.mjs so that a test can build the production bundles the same way.

/**
 * The packages loaded lazily from bundles of their own (pdf.js, OCR): the bundles that start at once (the
 * extension host, the CLI, the workers) leave them out.
 */
export const LAZY_PACKAGES = ['pdfjs-dist', 'tesseract.js', 'tesseract.js-core', 'pako'];

/** @param {{ production: boolean, buildHash: string }} o */
export function nodeBundleOptions({ production, buildHash }) {
  return {
    define: { __DOCQA_BUILD__: JSON.stringify(buildHash) },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    minify: production,
    // Minified, classes lose their names, and the errors name themselves after their class
    // (errors.ts): a zip bomb's too_large came back from the parser bundle as "internal" in the packaged
    // extension, because rendered-formats.ts recognises the bundle's IngestError by its name. (Unminified,
    // names are kept anyway.)
    keepNames: production,
    logLevel: 'warning',
    // pdf.js probes for this optional native canvas package; text extraction never needs it.
    external: ['vscode', '@napi-rs/canvas'],
    // pdf.js uses import.meta.url only to require() that optional canvas package; in the CommonJS bundle
    // it is empty, the probe fails quietly and no native module is loaded.
    logOverride: { 'empty-import-meta': 'silent' },
  };
}
