// Builds the extension host bundle, the CLI and the webview; copies pdf.js's CMaps and standard fonts
// next to the bundles so PDFs (CJK included) parse offline.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import crypto from 'node:crypto';
import { LAZY_PACKAGES, nodeBundleOptions } from './bundle-options.mjs';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const out = path.resolve('dist');

// The build hash recorded in every run manifest: the sources and prompts this build was made from, so it
// is the same on every machine for the same checkout (no git needed).
function sourceHash() {
  const h = crypto.createHash('sha256');
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(p.split(path.sep).join('/')).update('\0').update(fs.readFileSync(p)).update('\0');
    }
  };
  for (const d of ['src', 'prompts', 'webview']) walk(d);
  h.update(fs.readFileSync('package-lock.json'));
  return h.digest('hex').slice(0, 16);
}

const common = nodeBundleOptions({ production, buildHash: sourceHash() });

fs.rmSync(out, { recursive: true, force: true });
// pdf.js is a bundle of its own (dist/pdfjs/pdf.js), loaded on the first PDF (see pdfjs-bundle.ts); the
// other bundles leave it out and start faster. The tokenizer's ranks are no bundle at all: see below.
const withoutLazy = { ...common, external: [...common.external, ...LAZY_PACKAGES] };
await Promise.all([
  build({ ...withoutLazy, entryPoints: { extension: 'src/extension.ts', 'ingest-worker': 'src/index/ingest/ingest-worker.ts', 'bm25-worker': 'src/index/search/bm25-worker.ts' }, outdir: out }),
  build({ ...common, entryPoints: { 'pdfjs/pdf': 'src/index/parse/pdfjs-bundle.ts' }, outdir: out }),
  // The rendered formats' parsers with their libraries (mammoth, linkedom, Readability, yauzl), loaded on
  // the first Word file, web page, e-book or deck (see rendered-formats.ts).
  build({ ...common, entryPoints: { formats: 'src/index/parse/formats-bundle.ts' }, outdir: out }),
  // OCR: tesseract.js's worker script, Tesseract's core (its JavaScript half) and pako, loaded on the
  // first scanned page with OCR on (see ocr-runtime.ts); the WebAssembly and language data are copied below.
  build({ ...common, entryPoints: { 'ocr/ocr': 'src/index/parse/ocr-bundle.ts' }, outdir: out }),
  // The CLI itself: dist/cli-main.js, which `docqa` (dist/cli.js, below) compiles with a code cache.
  // Its dynamic imports (OpenTelemetry's http, openai's node:buffer) become require calls: the launcher's
  // vm.Script would need Node's experimental loader hook for import(), which warns on the terminal.
  build({ ...withoutLazy, entryPoints: { 'cli-main': 'src/cli/main.ts' }, outdir: out, supported: { 'dynamic-import': false } }),
  build({
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: true,
    minify: production,
    logLevel: 'warning',
    // pdf-view: the PDF page view, pdf.js with its worker module inside (the worker runs in the page's
    // thread: the webview's CSP refuses workers). pdf.js reads import.meta.url only to locate a worker or
    // wasm file, neither of which it looks for here.
    logOverride: { 'empty-import-meta': 'silent' },
    entryPoints: { webview: 'webview/main.tsx', chat: 'webview/chat/main.tsx', 'pdf-view': 'webview/pdf/main.ts', 'document-view': 'webview/document/main.ts' },
    outdir: out,
    jsx: 'automatic',
    jsxImportSource: 'preact',
  }),
  // The trace viewer (traces, evaluation results): its own bundle, dist/trace.js and dist/trace.css.
  build({ bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: true, minify: production, logLevel: 'warning', entryPoints: { trace: 'webview/trace/main.tsx' }, outdir: out, jsx: 'automatic', jsxImportSource: 'preact' }),
]);

const pdfjsDir = path.dirname(require.resolve('pdfjs-dist/package.json'));
for (const dir of ['cmaps', 'standard_fonts']) {
  fs.cpSync(path.join(pdfjsDir, dir), path.join(out, 'pdfjs', dir), { recursive: true });
}
// Tesseract's WebAssembly (the SIMD, LSTM-only build) and the English and Simplified Chinese language data
// (the npm packages' `best_int` models, gzipped): OCR reads them from dist/ocr/ and downloads nothing.
const pkgDir = (name) => path.dirname(require.resolve(`${name}/package.json`));
fs.copyFileSync(path.join(pkgDir('tesseract.js-core'), 'tesseract-core-simd-lstm.wasm'), path.join(out, 'ocr', 'tesseract-core-simd-lstm.wasm'));
for (const lang of ['eng', 'chi_sim']) {
  fs.copyFileSync(path.join(pkgDir(`@tesseract.js-data/${lang}`), '4.0.0_best_int', `${lang}.traineddata.gz`), path.join(out, 'ocr', `${lang}.traineddata.gz`));
}
// `docqa`: the launcher that runs dist/cli-main.js from V8's code cache (src/cli/launcher.ts), told the
// bundle's hash so that it never reads a cache made for another build.
const cliMainSha = crypto.createHash('sha256').update(fs.readFileSync(path.join(out, 'cli-main.js'))).digest('hex');
await build({ ...common, define: { ...common.define, __CLI_MAIN_SHA__: JSON.stringify(cliMainSha) }, entryPoints: { cli: 'src/cli/launcher.ts' }, outdir: out, banner: { js: '#!/usr/bin/env node' } });
fs.chmodSync(path.join(out, 'cli.js'), 0o755);
// The chat view's stylesheet and the codicon font it loads from dist (CSP style-src/font-src cspSource).
fs.copyFileSync('webview/chat/chat.css', path.join(out, 'chat.css'));
fs.copyFileSync('webview/pdf/pdf.css', path.join(out, 'pdf-view.css'));
fs.copyFileSync('webview/document/document.css', path.join(out, 'document-view.css'));
const codicons = path.join(path.dirname(require.resolve('@vscode/codicons/package.json')), 'dist');
for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join(codicons, f), path.join(out, f));

// The o200k tokenizer's tables (its pattern's character classes, the byte-pair merger's tables over
// gpt-tokenizer's ranks), built once here and written as dist/o200k.bin, which tokenizer.ts reads whole
// at its first count instead of building them (o200k-tables.ts).
const packer = await build({
  ...common,
  sourcemap: false,
  write: false,
  stdin: {
    contents: "import ranks from 'gpt-tokenizer/bpeRanks/o200k_base'; import { BpeMerger } from './src/common/bpe-merger'; import { writeTokenizerTables } from './src/common/o200k-tables'; import { fillClassTable } from './src/common/tokenizer'; export const table = writeTokenizerTables(fillClassTable(new Uint8Array(0x10000)), BpeMerger.fromRanks(ranks));",
    resolveDir: path.resolve('.'),
    loader: 'ts',
  },
});
const packerModule = { exports: {} };
new Function('module', 'exports', 'require', packer.outputFiles[0].text)(packerModule, packerModule.exports, require);
fs.writeFileSync(path.join(out, 'o200k.bin'), packerModule.exports.table);
if (watch) console.log('watch mode is not supported; run npm run build again');

// npm links a package's own `bin` only for its dependants, not inside the package itself; link it here
// so that `npx docqa` runs this build from the project folder.
const binLink = path.resolve('node_modules', '.bin', 'docqa');
fs.mkdirSync(path.dirname(binLink), { recursive: true });
fs.rmSync(binLink, { force: true });
fs.symlinkSync(path.relative(path.dirname(binLink), path.join(out, 'cli.js')), binLink);
