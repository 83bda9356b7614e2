import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';

/**
 * The extension host is one process shared with every other extension: the core must leave its
 * process-wide state as it found it. This process never prepares itself for pdf.js (unlike the tests
 * that parse PDFs in-process), so anything pdf.js or the core changed here would show.
 */
describe('safe in a shared host: the core changes no process-wide state', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer({ auto: true }).start();
  });
  after(() => server.close());

  const EVENTS = ['exit', 'uncaughtException', 'unhandledRejection', 'SIGINT', 'SIGTERM', 'warning', 'beforeExit'] as const;
  const state = () => ({
    globals: Object.getOwnPropertyNames(globalThis).sort(),
    console: ['log', 'info', 'warn', 'error', 'debug'].map((k) => (console as unknown as Record<string, unknown>)[k]),
    listeners: EVENTS.map((e) => process.listenerCount(e)),
    cwd: process.cwd(),
  });

  it('sources, a build with PDFs (in workers), inspect, a question and a trace leave globals, console, process listeners and the working directory as they were', async () => {
    const before = state();
    const app = new DocQaApp({
      dataDir: path.join(tempDir('docqa-host-'), 'data'),
      settings: AppSettings.parse({ chat: { base_url: server.baseURL }, embedding: { provider: 'openai-compatible', base_url: server.baseURL, model: 'fake', dimensions: 16 } }),
      keys: fixedKeys(undefined, undefined),
      appVersion: 'test',
    });
    await app.addSources([fixture('markdown', 'cell-notes.md'), fixture('pdf', 'photosynthesis-en.pdf'), fixture('pdf', 'photosynthesis-zh.pdf')]);
    const built = await (await app.startBuild({ confirmEgress: async () => true })).done;
    assert.equal(built?.manifest.stats.documents, 3, 'the PDFs were parsed (in ingestion workers)');
    const inspected = await app.inspect(fixture('pdf', 'cell-lecture.pdf'));
    assert.equal(inspected.outcome.ok, true);
    const run = await app.ask({ question: 'What happens in the Calvin cycle?' });
    assert.equal(run.result.release.status, 'SUCCESS');
    await run.trace;
    await app.close();
    const after = state();
    assert.deepEqual(after.globals, before.globals, 'no global was added (DOMMatrix, pdfjsWorker, …)');
    assert.ok(after.console.every((f, i) => f === before.console[i]), 'console methods are the original ones');
    assert.deepEqual(after.listeners, before.listeners, 'no process listener was added');
    assert.equal(after.cwd, before.cwd);
    assert.equal((globalThis as Record<string, unknown>).DOMMatrix, undefined);
  });
});
