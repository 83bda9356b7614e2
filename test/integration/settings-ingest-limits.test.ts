/**
 * The two per-document limits as VS Code settings: a `docqa.ingest.*` value read from the configuration
 * becomes the ingest option the application layer hands its ingestion workers, and a real build obeys it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DocQaApp } from '../../src/app/docqa-app';
import { DEFAULT_SETTINGS, fixedKeys } from '../../src/app/settings';
import { settingsFromConfiguration } from '../../src/vscode/settings-model';
import { fixture, tempDir } from '../helpers';

const read = (values: Record<string, unknown>) => (key: string) => values[key];

/** A folder with one real PDF of a few hundred KB: pdf.js needs far more than a millisecond for it. */
function folder(): string {
  const dir = tempDir('docqa-limits-src-');
  fs.copyFileSync(fixture('pdf', 'pdkids.pdf'), path.join(dir, 'pdkids.pdf'));
  return dir;
}

async function scan(values: Record<string, unknown>) {
  const r = settingsFromConfiguration(read(values));
  assert.deepEqual(r.problems, []);
  const app = new DocQaApp({ dataDir: path.join(tempDir('docqa-limits-'), 'data'), settings: r.settings, keys: fixedKeys(undefined, undefined), appVersion: 'test' });
  await app.addSources([folder()]);
  return { settings: r.settings, scan: await app.scanSources() };
}

describe('docqa.ingest.maxDocumentMs and docqa.ingest.maxWorkerMemoryMb reach the ingestion workers', () => {
  it('maps both settings onto the ingest options, and leaves the defaults when unset', () => {
    const set = settingsFromConfiguration(read({ 'docqa.ingest.maxDocumentMs': 5000, 'docqa.ingest.maxWorkerMemoryMb': 512 }));
    assert.deepEqual(set.problems, []);
    assert.equal(set.settings.ingest.max_document_ms, 5000);
    assert.equal(set.settings.ingest.max_worker_memory_mb, 512);
    const unset = settingsFromConfiguration(read({}));
    assert.equal(unset.settings.ingest.max_document_ms, DEFAULT_SETTINGS.ingest.max_document_ms);
    assert.equal(unset.settings.ingest.max_worker_memory_mb, DEFAULT_SETTINGS.ingest.max_worker_memory_mb);
  });

  it('refuses a worker heap below 256 MB by its key and keeps the default', () => {
    const r = settingsFromConfiguration(read({ 'docqa.ingest.maxWorkerMemoryMb': 128, 'docqa.ingest.maxDocumentMs': 0 }));
    assert.deepEqual(r.problems, [
      { key: 'docqa.ingest.maxDocumentMs', message: 'docqa.ingest.maxDocumentMs must be at least 1' },
      { key: 'docqa.ingest.maxWorkerMemoryMb', message: 'docqa.ingest.maxWorkerMemoryMb must be at least 256' },
    ]);
    assert.equal(r.settings.ingest.max_worker_memory_mb, DEFAULT_SETTINGS.ingest.max_worker_memory_mb);
    assert.equal(r.settings.ingest.max_document_ms, DEFAULT_SETTINGS.ingest.max_document_ms);
  });

  it('a build under a 1 ms document limit stops the PDF as too_slow; with the default it is indexed', async () => {
    const limited = await scan({ 'docqa.ingest.maxDocumentMs': 1, 'docqa.ingest.maxWorkerMemoryMb': 256 });
    assert.equal(limited.settings.ingest.max_document_ms, 1);
    assert.deepEqual(limited.scan.failed_documents.map((f) => [path.basename(f.path), f.stage, f.code]), [['pdkids.pdf', 'parse', 'too_slow']]);
    assert.match(limited.scan.failed_documents[0]!.message, /parsing took longer than 0 s \(the ingest\.max_document_ms limit\)/);
    const unlimited = await scan({});
    assert.deepEqual(unlimited.scan.failed_documents, []);
    assert.deepEqual(unlimited.scan.documents.map((d) => path.basename(d.path)).sort(), ['pdkids.pdf']);
  });
});
