import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers';

const ROOT = path.join(__dirname, '..', '..');
const VSCE = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');

function filesUnder(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [rel];
  return fs.readdirSync(abs).flatMap((name) => filesUnder(path.posix.join(rel, name)));
}

interface ZipEntry {
  name: string;
  size: number;
}

/** The entries of a zip file, read from its central directory (a .vsix is a plain zip, no ZIP64 at this size). */
function zipEntries(zip: Buffer): ZipEntry[] {
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  assert.ok(end >= 0, 'no end-of-central-directory record: not a zip file');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  assert.ok(count !== 0xffff && at !== 0xffffffff, 'ZIP64 archive: not expected for a few MB');
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50, `central directory entry ${i} is corrupt`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    entries.push({ name: zip.toString('utf8', at + 46, at + 46 + nameLength), size: zip.readUInt32LE(at + 24) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

describe('extension package', () => {
  it('vsce packages what the extension runs (bundles, the CLI its MCP server runs, pdf.js with CMaps and fonts, ranks, prompts, manifest, README, licence) and no source maps or sources', () => {
    assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'extension.js')), 'run npm run build first');
    const out = path.join(tempDir('docqa-vsix-'), 'docqa.vsix');
    // vsce itself, as `npm run package` runs it (that script builds first; here `npm test` has just built).
    const r = spawnSync(process.execPath, [VSCE, 'package', '--no-dependencies', '--out', out], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, `vsce package failed:\n${r.stdout}\n${r.stderr}`);
    // A warning (a missing repository, a README link it cannot resolve) is a packaging problem too.
    assert.doesNotMatch(r.stdout + r.stderr, /WARNING/, `vsce warned:\n${r.stdout}\n${r.stderr}`);

    const entries = zipEntries(fs.readFileSync(out));
    const names = entries.map((e) => e.name);
    assert.equal(new Set(names).size, names.length, 'duplicate entries');

    // Exactly these files, under extension/ (vsce renames the README and the licence file).
    const shipped = [
      'dist/extension.js',
      'dist/ingest-worker.js',
      'dist/bm25-worker.js',
      'dist/webview.js',
      'dist/chat.js',
      'dist/chat.css',
      'dist/codicon.css',
      'dist/codicon.ttf',
      'dist/trace.js',
      'dist/trace.css',
      // The PDF page view (pdf.js with its worker module inside) and its stylesheet.
      'dist/pdf-view.js',
      'dist/pdf-view.css',
      // The document view (Word, web pages, e-books, slides) and its stylesheet; the parsers of those
      // formats with their libraries, loaded on the first such file.
      'dist/document-view.js',
      'dist/document-view.css',
      'dist/formats.js',
      // The CLI: VS Code's agent and other MCP clients run `docqa mcp` from it (src/vscode/mcp-launch.ts);
      // cli.js runs cli-main.js with a code cache it writes at run time (never shipped).
      'dist/cli.js',
      'dist/cli-main.js',
      'dist/o200k.bin',
      'dist/pdfjs/pdf.js',
      ...filesUnder('dist/pdfjs/cmaps'),
      ...filesUnder('dist/pdfjs/standard_fonts'),
      // OCR: tesseract.js's worker script with Tesseract's core, its WebAssembly and the language data
      // (nothing is downloaded at run time).
      'dist/ocr/ocr.js',
      'dist/ocr/tesseract-core-simd-lstm.wasm',
      'dist/ocr/eng.traineddata.gz',
      'dist/ocr/chi_sim.traineddata.gz',
      ...filesUnder('prompts'),
      // The manifest's and the code's translations: VS Code reads them from the installed extension.
      'package.nls.json',
      'package.nls.zh-cn.json',
      ...filesUnder('l10n'),
      ...filesUnder('media/walkthrough'),
    ];
    const expected = ['[Content_Types].xml', 'extension.vsixmanifest', 'extension/package.json', 'extension/readme.md', 'extension/LICENSE.txt', ...shipped.map((f) => `extension/${f}`)];
    assert.deepEqual([...names].sort(), [...expected].sort());

    for (const needed of ['dist/pdfjs/cmaps/UniGB-UCS2-H.bcmap', 'dist/pdfjs/standard_fonts/FoxitSerif.pfb', 'prompts/baseline-en/bundle.json', 'prompts/baseline-zh/system.md']) {
      assert.ok(names.includes(`extension/${needed}`), `${needed} is not packaged`);
    }
    // `!dist/**` once shipped 18 MB of source maps.
    assert.deepEqual(
      names.filter((n) => n.endsWith('.map') || n.startsWith('extension/src/') || n.startsWith('extension/node_modules/') || n.startsWith('extension/test/')),
      [],
    );
    // What is shipped is what the build wrote (byte counts as stored in the zip).
    const sizes = new Map(entries.map((e) => [e.name, e.size]));
    for (const f of shipped) assert.equal(sizes.get(`extension/${f}`), fs.statSync(path.join(ROOT, f)).size, `${f}: packaged size differs from the built file`);
    assert.equal(sizes.get('extension/package.json'), fs.statSync(path.join(ROOT, 'package.json')).size, 'package.json: packaged manifest differs');
  });
});
