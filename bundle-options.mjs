// The esbuild options of the Node bundles (extension host, CLI, workers, the lazily loaded parser
// bundles), apart from esbuild.mjs so that a test can build the production bundles the same way.
import { tokenizer } from 'acorn';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The packages loaded lazily from bundles of their own (pdf.js, OCR): the bundles that start at once (the
 * extension host, the CLI, the workers) leave them out.
 */
export const LAZY_PACKAGES = ['pdfjs-dist', 'tesseract.js', 'tesseract.js-core', 'pako'];

// eslint-disable-next-line no-control-regex -- every character past ASCII, by its range
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * `src` (a bundle esbuild wrote) with every non-ASCII character in its comments and regular expression
 * literals written as a `\uXXXX` escape. esbuild's ASCII output escapes strings, templates and names but
 * leaves those two as they are; one character past Latin-1 makes V8 hold the whole source two bytes a
 * character (the CLI's 3.9 MB bundle: 7.8 MB, twice at start). Throws if one is left anywhere else.
 * A regular expression's `source` then shows the escape (`/é/.source` is `\u00E9`: the same pattern when
 * compiled again), and a line with an escape is a few columns longer than its source map says.
 */
export function escapeNonAscii(src, name) {
  if (!NON_ASCII.test(src)) return src;
  const ranges = [];
  const onComment = (_block, _text, start, end) => ranges.push([start, end, false]);
  for (const t of tokenizer(src, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true, allowReturnOutsideFunction: true, onComment })) {
    if (t.type.label === 'regexp') ranges.push([t.start, t.end, true]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end, regexp] of ranges) {
    const part = src.slice(start, end);
    out += src.slice(at, start);
    out += !NON_ASCII.test(part)
      ? part
      : // eslint-disable-next-line no-control-regex -- as NON_ASCII, with the backslashes before
        part.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, c) => {
          const hex = `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
          // In a regular expression `\é` is `é` (an identity escape): its backslash goes with the escape.
          return (regexp && slashes.length % 2 === 1 ? slashes.slice(1) : slashes) + hex;
        });
    at = end;
  }
  out += src.slice(at);
  const left = NON_ASCII.exec(out);
  if (left) throw new Error(`${name}: a character past ASCII outside comments and regular expressions (offset ${left.index}): ${JSON.stringify(out.slice(Math.max(0, left.index - 40), left.index + 20))}`);
  return out;
}

/**
 * An esbuild plugin: every JavaScript file the build writes is made ASCII-only (escapeNonAscii), so that
 * V8 holds its source one byte a character (its source stays in memory for as long as its functions may
 * be compiled: for the life of the process).
 */
export const asciiSource = {
  name: 'ascii-source',
  setup(build) {
    build.initialOptions.metafile = true;
    build.onEnd((result) => {
      if (result.errors.length || !result.metafile || build.initialOptions.write === false) return;
      for (const file of Object.keys(result.metafile.outputs)) {
        if (!file.endsWith('.js')) continue;
        const at = path.resolve(build.initialOptions.absWorkingDir ?? process.cwd(), file);
        const src = fs.readFileSync(at, 'utf8');
        const out = escapeNonAscii(src, file);
        if (out !== src) fs.writeFileSync(at, out);
      }
    });
  },
};

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
    plugins: [asciiSource],
  };
}
