import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import picomatch from 'picomatch';

const ROOT = path.join(__dirname, '..', '..');

function filesUnder(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [rel];
  return fs.readdirSync(abs).flatMap((name) => filesUnder(path.posix.join(rel, name)));
}

/**
 * What `vsce package` puts in the .vsix from these files, by its rule (@vscode/vsce 3.x, package.js
 * collectFiles): a file is left out when an ignore pattern of .vscodeignore matches it, unless any `!`
 * pattern matches it too, whatever the order of the lines.
 */
function packaged(files: readonly string[]): string[] {
  const lines = fs
    .readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const ignore = lines.filter((l) => !l.startsWith('!')).map((p) => picomatch(p, { dot: true }));
  const keep = lines.filter((l) => l.startsWith('!')).map((p) => picomatch(p.slice(1), { dot: true }));
  return files.filter((f) => !ignore.some((m) => m(f)) || keep.some((m) => m(f)));
}

describe('extension package', () => {
  it('ships what the extension runs (bundles, pdf.js with CMaps and fonts, ranks, prompts, licence) and no source maps or CLI', () => {
    const candidates = [...filesUnder('dist'), ...filesUnder('prompts'), ...filesUnder('src').slice(0, 5), 'package.json', 'README.md', 'LICENSE', 'tsconfig.json'];
    assert.ok(candidates.includes('dist/extension.js'), 'run npm run build first');
    const shipped = new Set(packaged(candidates));
    for (const needed of ['dist/extension.js', 'dist/ingest-worker.js', 'dist/webview.js', 'dist/o200k.bin', 'dist/pdfjs/pdf.js', 'dist/pdfjs/cmaps/UniGB-UCS2-H.bcmap', 'dist/pdfjs/standard_fonts/FoxitSerif.pfb', 'prompts/baseline-en/bundle.json', 'prompts/baseline-zh/system.md', 'package.json', 'README.md', 'LICENSE']) {
      assert.ok(shipped.has(needed), `${needed} is not packaged`);
      assert.ok(fs.existsSync(path.join(ROOT, needed)), `${needed} does not exist`);
    }
    // `!dist/**` once shipped 18 MB of source maps: a negation beats `dist/**/*.map` below it.
    assert.deepEqual([...shipped].filter((f) => f.endsWith('.map') || f === 'dist/cli.js' || f.startsWith('src/') || f === 'tsconfig.json'), []);
  });
});
