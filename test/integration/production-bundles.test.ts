/**
 * The bundles as the packaged extension ships them (minified, `npm run package`), not the development
 * build the other tests run: the worker and the rendered formats' bundle, built here with the same
 * options into a folder of their own.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { LAZY_PACKAGES, nodeBundleOptions } from '../../bundle-options.mjs';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { fixture, tempDir } from '../helpers';
import { bombPayload, docx } from '../hostile-zips';

const ROOT = path.join(__dirname, '..', '..');

describe('the production bundles', () => {
  let out: string;
  let pool: ReturnType<typeof createIngestPool>;
  before(async () => {
    out = tempDir('docqa-production-bundles-');
    const options = nodeBundleOptions({ production: true, buildHash: 'test' });
    // As esbuild.mjs splits them: the worker leaves the lazily loaded libraries out, the formats' bundle has its own.
    await build({ ...options, absWorkingDir: ROOT, entryPoints: { 'ingest-worker': 'src/index/ingest/ingest-worker.ts' }, outdir: out, external: [...options.external, ...LAZY_PACKAGES] });
    await build({ ...options, absWorkingDir: ROOT, entryPoints: { formats: 'src/index/parse/formats-bundle.ts' }, outdir: out });
    fs.copyFileSync(path.join(ROOT, 'dist', 'o200k.bin'), path.join(out, 'o200k.bin'));
    pool = createIngestPool(DEFAULT_INGEST_OPTIONS, path.join(out, 'ingest-worker.js'), 1);
  });
  after(() => pool.close());

  it('a zip bomb fails too_large, not internal: the parser bundle’s errors keep their class names when minified', async () => {
    const dir = tempDir();
    const bomb = path.join(dir, 'bomb.docx');
    fs.writeFileSync(bomb, docx(bombPayload(144)));
    const id = (doc_id: string) => ({ doc_id, source_label: 'minified', aliases: [] });
    const [failed, real] = await Promise.all([pool.run(bomb, id('bomb')), pool.run(fixture('formats', 'photosynthesis.docx'), id('guide'))]);
    assert.equal(failed.ok, false);
    if (failed.ok !== false) return;
    assert.deepEqual([failed.failure.stage, failed.failure.code], ['parse', 'too_large'], failed.failure.message);
    assert.match(failed.failure.message, /^its part word\/document\.xml would unpack to 144 MB/);
    assert.equal(real.ok, true, 'the real Word file beside it is read');
  });

  it('every Node bundle is ASCII, minified or not: V8 keeps a source with one character past Latin-1 two bytes a character', () => {
    const bundles = [...['ingest-worker.js', 'formats.js'].map((f) => path.join(out, f)), ...['cli.js', 'cli-main.js', 'extension.js', 'ingest-worker.js', 'bm25-worker.js', 'formats.js', 'pdfjs/pdf.js', 'ocr/ocr.js'].map((f) => path.join(ROOT, 'dist', f))];
    for (const file of bundles) {
      const text = fs.readFileSync(file, 'latin1');
      // eslint-disable-next-line no-control-regex -- every character past ASCII
      const at = text.search(/[^\x00-\x7f]/);
      assert.equal(at, -1, `${file}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 20))}`);
    }
  });
});
