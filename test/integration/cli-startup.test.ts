import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fixture, tempDir } from '../helpers';
import { CLI, makeCli } from './cli';

const DIST = path.dirname(CLI);
const PDFJS = path.join(DIST, 'pdfjs', 'pdf.js');
const O200K = path.join(DIST, 'o200k.js');

/**
 * Runs the built CLI with a preload that writes, at exit, every module file the process loaded: what a
 * command paid to start.
 */
function loadedBy(args: string[]): string[] {
  const dir = tempDir('docqa-startup-');
  const preload = path.join(dir, 'preload.js');
  const out = path.join(dir, 'loaded.json');
  fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`);
  const r = makeCli().run(args, { NODE_OPTIONS: `--require ${preload}` });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
}

describe('CLI start-up', () => {
  it('loads neither pdf.js nor the tokenizer’s ranks for a command that needs neither', () => {
    for (const args of [['--version'], ['sources', 'list']]) {
      const loaded = loadedBy(args);
      assert.ok(loaded.includes(CLI), `${args.join(' ')}: ${loaded.join(', ')}`);
      assert.ok(!loaded.includes(PDFJS) && !loaded.includes(O200K), `${args.join(' ')} loaded ${loaded.join(', ')}`);
    }
  });

  it('loads the tokenizer for a note and pdf.js too for a PDF, from their own bundles', () => {
    const note = loadedBy(['inspect', fixture('markdown', 'cell-notes.md')]);
    assert.ok(note.includes(O200K) && !note.includes(PDFJS), note.join(', '));
    const pdf = loadedBy(['inspect', fixture('pdf', 'photosynthesis-zh.pdf')]);
    assert.ok(pdf.includes(O200K) && pdf.includes(PDFJS), pdf.join(', '));
  });

  it('keeps pdf.js and the ranks out of the bundles every start reads (extension host and workers too)', () => {
    // Markers of the development build `npm run build` makes: pdf.js's document class, and the comment
    // esbuild writes above each bundled module.
    assert.ok(fs.readFileSync(PDFJS, 'utf8').includes('PDFDocumentProxy'));
    assert.ok(fs.readFileSync(O200K, 'utf8').includes('bpeRanks/o200k_base.js'));
    for (const bundle of ['cli.js', 'extension.js', 'ingest-worker.js']) {
      const code = fs.readFileSync(path.join(DIST, bundle), 'utf8');
      assert.ok(!code.includes('PDFDocumentProxy'), `${bundle} contains pdf.js`);
      assert.ok(!code.includes('bpeRanks/o200k_base.js'), `${bundle} contains the o200k ranks`);
    }
  });
});
