import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { BpeMerger } from '../../src/common/bpe-merger';
import { writeTokenizerTables } from '../../src/common/o200k-tables';
import { fillClassTable } from '../../src/common/tokenizer';
import { fixture, tempDir } from '../helpers';
import { CLI, makeCli } from './cli';

const DIST = path.dirname(CLI);
const PDFJS = path.join(DIST, 'pdfjs', 'pdf.js');
const O200K = path.join(DIST, 'o200k.bin');

interface Loaded {
  modules: string[];
  reads: string[];
}

/**
 * Runs the built CLI with a preload that writes, when each thread ends, every module file it loaded and
 * every file it read whole: what a command paid to start, in the main thread and in the ingestion
 * workers (a worker's module registry is its own).
 */
function loadedBy(args: string[]): { main: Loaded; workers: Loaded } {
  const dir = tempDir('docqa-startup-');
  const preload = path.join(dir, 'preload.js');
  fs.writeFileSync(
    preload,
    `const fs = require('node:fs'); const { isMainThread, threadId } = require('node:worker_threads'); const read = fs.readFileSync; const reads = [];
const out = require('node:path').join(${JSON.stringify(dir)}, isMainThread ? 'main.json' : 'worker-' + threadId + '.json');
const save = () => fs.writeFileSync(out, JSON.stringify({ modules: Object.keys(require.cache), reads }));
fs.readFileSync = function (file, ...rest) { reads.push(String(file)); const r = read.call(this, file, ...rest); if (!isMainThread) save(); return r; };
const open = fs.openSync; fs.openSync = function (file, ...rest) { reads.push(String(file)); const r = open.call(this, file, ...rest); if (!isMainThread) save(); return r; };
process.on('exit', save);
// A worker is terminated, not exited: it writes as it goes.
if (!isMainThread) { const M = require('node:module'); const req = M.prototype.require; M.prototype.require = function (...a) { const r = req.apply(this, a); save(); return r; }; }\n`,
  );
  const r = makeCli().run(args, { NODE_OPTIONS: `--require ${preload}` });
  assert.equal(r.code, 0, r.stderr);
  const read = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Loaded;
  const workers = fs.readdirSync(dir).filter((f) => f.startsWith('worker-')).map(read);
  return { main: read('main.json'), workers: { modules: workers.flatMap((w) => w.modules), reads: workers.flatMap((w) => w.reads) } };
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
      const { main, workers } = loadedBy(args);
      assert.ok(main.modules.includes(CLI), `${args.join(' ')}: ${main.modules.join(', ')}`);
      const all = [...main.modules, ...main.reads, ...workers.modules, ...workers.reads];
      assert.ok(!all.includes(PDFJS) && !all.includes(O200K), `${args.join(' ')} loaded ${all.join(', ')}`);
    }
  });

  it('parses in a worker: pdf.js loaded for a PDF there and never in the main thread; the tokenizer tables read once, by the main thread, for every worker; never the tokenizer package', () => {
    const note = loadedBy(['inspect', fixture('markdown', 'cell-notes.md')]);
    // Shared with the workers (shareTokenizerTables): two workers reading their own copy held it twice.
    assert.ok(note.main.reads.includes(O200K) && !note.workers.reads.includes(O200K), [...note.main.reads, '|', ...note.workers.reads].join(', '));
    assert.ok(![...note.main.modules, ...note.workers.modules].includes(PDFJS));
    assert.deepEqual(fromTokenizerPackage([...note.main.modules, ...note.workers.modules]), []);
    const pdf = loadedBy(['inspect', fixture('pdf', 'photosynthesis-zh.pdf')]);
    assert.ok(pdf.workers.modules.includes(PDFJS) && !pdf.workers.reads.includes(O200K), [...pdf.workers.modules, ...pdf.workers.reads].join(', '));
    assert.ok(!pdf.main.modules.includes(PDFJS), 'pdf.js never runs in the main thread');
    assert.deepEqual(fromTokenizerPackage([...pdf.main.modules, ...pdf.workers.modules]), []);
  });

  it('keeps pdf.js and the ranks out of the bundles every start reads (extension host and workers too)', () => {
    // Markers of the development build `npm run build` makes: pdf.js's document class, and the comment
    // esbuild writes above each bundled module.
    assert.ok(fs.readFileSync(PDFJS, 'utf8').includes('PDFDocumentProxy'));
    const tables = writeTokenizerTables(fillClassTable(new Uint8Array(0x10000)), BpeMerger.fromRanks(o200kRanks));
    assert.ok(Buffer.from(tables).equals(fs.readFileSync(O200K)), 'dist/o200k.bin is the classes and merger tables as this Node builds them');
    for (const bundle of ['cli.js', 'cli-main.js', 'extension.js', 'ingest-worker.js']) {
      const code = fs.readFileSync(path.join(DIST, bundle), 'utf8');
      assert.ok(!code.includes('PDFDocumentProxy'), `${bundle} contains pdf.js`);
      assert.ok(!code.includes('bpeRanks/o200k_base.js'), `${bundle} contains the o200k ranks`);
    }
  });

  it('starts from a V8 code cache it writes beside the bundle, and ignores a cache it cannot use or write', () => {
    // A copy of the launcher and the bundle, so the shared dist/ cache of the other tests is not touched.
    const dir = tempDir('docqa-v8cache-');
    for (const f of ['cli.js', 'cli-main.js']) fs.copyFileSync(path.join(DIST, f), path.join(dir, f));
    const cache = path.join(dir, 'cli-main.v8cache');
    const version = () => {
      const r = spawnSync(process.execPath, [path.join(dir, 'cli.js'), '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, '');
      return r.stdout.trim();
    };
    const expected = version();
    assert.match(expected, /^\d+\.\d+\.\d+/);
    const header = (f: string) => fs.readFileSync(f).subarray(0, 200).toString('latin1').split('\n')[0]!;
    assert.match(header(cache), new RegExp(`^docqa-v8cache 1 [0-9a-f]{64} ${process.version.replace(/\./g, '\\.')} ${process.arch}$`));
    // Used, not written again.
    const written = fs.statSync(cache);
    assert.equal(version(), expected);
    assert.equal(fs.statSync(cache).mtimeMs, written.mtimeMs);
    // A cache made for another build is not read, and is replaced.
    fs.writeFileSync(cache, fs.readFileSync(cache, 'latin1').replace(/^docqa-v8cache 1 [0-9a-f]{8}/, 'docqa-v8cache 1 00000000'), 'latin1');
    assert.equal(version(), expected);
    assert.doesNotMatch(header(cache), / 00000000/);
    // Garbage V8 refuses: the CLI runs as ever and the cache is written again.
    const key = header(cache);
    fs.writeFileSync(cache, `${key}\nnot a code cache`);
    assert.equal(version(), expected);
    assert.ok(fs.statSync(cache).size > 100_000, 'rewritten');
    // A cache that cannot be written (its path is a folder): quietly without.
    fs.rmSync(cache);
    fs.mkdirSync(cache);
    assert.equal(version(), expected);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['cli-main.js', 'cli-main.v8cache', 'cli.js'], 'no temporary file left behind');
  });
});
