import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { packRanks } from '../../src/common/bpe-merger';
import { fixture, tempDir } from '../helpers';
import { CLI, makeCli } from './cli';

const DIST = path.dirname(CLI);
const PDFJS = path.join(DIST, 'pdfjs', 'pdf.js');
const O200K = path.join(DIST, 'o200k.bin');

/**
 * Runs the built CLI with a preload that writes, at exit, every module file the process loaded and every
 * file it read whole: what a command paid to start.
 */
function loadedBy(args: string[]): { modules: string[]; reads: string[] } {
  const dir = tempDir('docqa-startup-');
  const preload = path.join(dir, 'preload.js');
  const out = path.join(dir, 'loaded.json');
  fs.writeFileSync(
    preload,
    `const fs = require('node:fs'); const read = fs.readFileSync; const reads = [];
fs.readFileSync = function (file, ...rest) { reads.push(String(file)); return read.call(this, file, ...rest); };
process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ modules: Object.keys(require.cache), reads })));\n`,
  );
  const r = makeCli().run(args, { NODE_OPTIONS: `--require ${preload}` });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(fs.readFileSync(out, 'utf8')) as { modules: string[]; reads: string[] };
}

const fromTokenizerPackage = (modules: string[]) => modules.filter((m) => m.includes(`${path.sep}gpt-tokenizer${path.sep}`));

describe('CLI start-up', () => {
  it('installs as the docqa command: package.json bin names the built CLI', () => {
    // npm skips a bin whose file is missing without a word; `bin` once named dist/cli.mjs, which the
    // build never wrote, so `npm install -g` and `npm link` gave no command at all.
    const root = path.join(DIST, '..');
    const prefix = tempDir('docqa-global-');
    const npm = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', root], { encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error', npm_config_cache: path.join(prefix, 'npm-cache') } });
    assert.equal(npm.status, 0, npm.stderr);
    const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const r = spawnSync(path.join(prefix, 'bin', 'docqa'), ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    assert.equal(r.status, 0, `${r.error?.message ?? ''} ${r.stderr}`);
    assert.equal(r.stdout.trim(), version);
  });

  it('loads neither pdf.js nor the tokenizer’s ranks for a command that needs neither', () => {
    for (const args of [['--version'], ['sources', 'list']]) {
      const { modules, reads } = loadedBy(args);
      assert.ok(modules.includes(CLI), `${args.join(' ')}: ${modules.join(', ')}`);
      assert.ok(!modules.includes(PDFJS) && !reads.includes(O200K), `${args.join(' ')} loaded ${[...modules, ...reads].join(', ')}`);
    }
  });

  it('reads the packed ranks for a note, and loads pdf.js too for a PDF; never the tokenizer package', () => {
    const note = loadedBy(['inspect', fixture('markdown', 'cell-notes.md')]);
    assert.ok(note.reads.includes(O200K) && !note.modules.includes(PDFJS), [...note.modules, ...note.reads].join(', '));
    assert.deepEqual(fromTokenizerPackage(note.modules), []);
    const pdf = loadedBy(['inspect', fixture('pdf', 'photosynthesis-zh.pdf')]);
    assert.ok(pdf.reads.includes(O200K) && pdf.modules.includes(PDFJS), [...pdf.modules, ...pdf.reads].join(', '));
    assert.deepEqual(fromTokenizerPackage(pdf.modules), []);
  });

  it('keeps pdf.js and the ranks out of the bundles every start reads (extension host and workers too)', () => {
    // Markers of the development build `npm run build` makes: pdf.js's document class, and the comment
    // esbuild writes above each bundled module.
    assert.ok(fs.readFileSync(PDFJS, 'utf8').includes('PDFDocumentProxy'));
    assert.deepEqual(new Uint8Array(fs.readFileSync(O200K)), packRanks(o200kRanks), 'dist/o200k.bin is the ranks as packRanks packs them');
    for (const bundle of ['cli.js', 'extension.js', 'ingest-worker.js']) {
      const code = fs.readFileSync(path.join(DIST, bundle), 'utf8');
      assert.ok(!code.includes('PDFDocumentProxy'), `${bundle} contains pdf.js`);
      assert.ok(!code.includes('bpeRanks/o200k_base.js'), `${bundle} contains the o200k ranks`);
    }
  });
});
