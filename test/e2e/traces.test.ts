/**
 * A trace opened in a real VS Code (code-server): `docqa ask` records a full trace into a data directory
 * inside the workspace (against the fake model server), the packaged extension is installed, and opening
 * that trace.json from Quick Open shows the DocQA trace viewer (the custom editor) with the run's span
 * tree; Replay retrieval is answered by the extension over that data directory. Run by `npm run test:e2e`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { spanTree } from '../../src/shared/span-tree';
import { readTrace } from '../../src/trace/trace-store';
import { DataDir } from '../../src/common/data-dir';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { makeCli } from '../integration/cli';
import { CodeServer, QUIET_SETTINGS, endJourney, type Profile, installExtension, makeProfile } from './lib/code-server';
import { ROOT, packagedVsix } from './lib/paths';
import { Journey } from './lib/steps';
import { runCommand } from './lib/quick-input';
import { activeTab, launchBrowser, openFile, openWorkbench, webviewFrame } from './lib/workbench';


describe('traces in VS Code (code-server)', () => {
  it('opens a trace.json of a DocQA data directory in the trace viewer and shows its span tree', { timeout: 5 * 60_000 }, async () => {
    const journey = new Journey(`${new Date().toISOString().replace(/[:.]/g, '-')}-traces`);
    const fake = new FakeOpenAIServer({ auto: true });
    let profile: Profile | null = null;
    let server: CodeServer | null = null;
    let browser: Browser | null = null;
    let passed = false;
    try {
      const { workspace, runId } = await journey.step('record a full trace with docqa ask into a data directory in the workspace', async () => {
        await fake.start();
        profile = makeProfile({ ...QUIET_SETTINGS, 'docqa.chat.baseUrl': fake.baseURL, 'docqa.chat.model': 'fake-chat', 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': fake.baseURL, 'docqa.embedding.model': 'fake-embedding', 'docqa.embedding.dimensions': 16 });
        const ws = path.join(profile.root, 'workspace');
        fs.mkdirSync(path.join(ws, 'notes'), { recursive: true });
        fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'markdown', 'cell-notes.md'), path.join(ws, 'notes', 'cell-notes.md'));
        const cli = makeCli({ DOCQA_HOME: path.join(ws, 'docqa-data'), DOCQA_CHAT_BASE_URL: fake.baseURL, DOCQA_CHAT_API_KEY: 'sk-e2e-traces', DOCQA_EMBEDDING_BASE_URL: fake.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embedding', DOCQA_EMBEDDING_DIMENSIONS: '16', DOCQA_EMBEDDING_API_KEY: 'sk-e2e-traces' });
        cli.json(['sources', 'add', path.join(ws, 'notes'), '--json']);
        assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
        const r = await cli.runAsync(['ask', 'What do cells have?', '--json', '--trace', 'full']);
        assert.equal(r.code, 0, r.stderr);
        return { workspace: ws, runId: (JSON.parse(r.stdout) as { run_id: string }).run_id };
      });
      const expected = await (async () => {
        const t = await readTrace(new DataDir(path.join(workspace, 'docqa-data')), runId);
        const out: string[] = [];
        const walk = (n: ReturnType<typeof spanTree>[number]) => (out.push(n.kind), n.children.forEach(walk));
        spanTree(t.spans).forEach(walk);
        return out;
      })();
      assert.ok(expected.includes('tool_call'), `the automatic agent searched: ${expected.join(' ')}`);

      server = await journey.step('install the packaged extension and start code-server on 127.0.0.1', async () => {
        await installExtension(profile!, packagedVsix());
        return CodeServer.start(profile!, { disableWorkspaceTrust: true });
      });

      const page = await journey.step('open the workspace', async () => {
        browser = await launchBrowser(path.join(profile!.root, 'browser-home'));
        const p = await openWorkbench(browser, server!.folderUrl(workspace));
        journey.usePage(p);
        return p;
      });

      await journey.step('open trace.json from Quick Open: the DocQA trace viewer shows the span tree', async () => {
        await openFile(page, 'trace.json');
        await activeTab(page, 'trace.json').waitFor();
        const view = await webviewFrame(page);
        await view.locator('[data-testid="span-list"] .span-row').first().waitFor({ timeout: 30_000 });
        assert.deepEqual(await view.locator('[data-testid="span-list"] .span-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind'))), expected);
        assert.equal(await view.locator('[data-testid="question"]').innerText(), 'What do cells have?');
        assert.equal(await view.locator('[data-testid="run-id"]').innerText(), runId);
        assert.ok((await view.locator('[data-testid="manifest"] tr[data-field="config hash"]').count()) === 1);
      });

      await journey.step('Replay retrieval is answered by the extension over that data directory: identical', async () => {
        const view = await webviewFrame(page);
        await view.locator('[data-testid="replay"]').click();
        const result = view.locator('[data-testid="replay-result"]');
        await result.waitFor({ timeout: 30_000 });
        assert.match(await result.innerText(), /All \d+ results identical\./);
      });
      await journey.step('the DocQA container has a Prompts view listing the release baselines with their hashes, and a Traces view', async () => {
        await runCommand(page, 'View: Show DocQA');
        const pane = (title: string) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: new RegExp(`^${title}`) }) });
        const prompts = pane('Prompts');
        const baseline = prompts.locator('.monaco-list-row', { hasText: 'baseline-en' });
        // A view may start collapsed (the container is crowded): expand it by its header, once.
        const header = prompts.locator('.pane-header');
        if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
        await baseline.waitFor();
        assert.match(await baseline.innerText(), /release baseline · en · \S+ · [0-9a-f]{12}/);
        await pane('Traces').locator('.pane-header').waitFor();
      });
      passed = true;
    } finally {
      await endJourney(journey, { browser, server, profile, passed });
      await fake.close();
    }
  });
});
