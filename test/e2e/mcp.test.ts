/**
 * DocQA's MCP server from a real VS Code (code-server): the packaged extension over a data directory
 * that holds an index, "DocQA: Copy MCP Server Configuration" puts a configuration on the clipboard, and
 * that configuration, started as Claude Desktop or Cursor would start it, serves the five tools over the
 * extension's own index (the CLI shipped in the .vsix, run by the extension host's Node). VS Code lists
 * the server its provider registers (MCP: List Servers) and starts it: Running, 5 tools. Run by `npm run test:e2e`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { makeCli } from '../integration/cli';
import { recordTrials } from '../reliability/trials';
import { CodeServer, QUIET_SETTINGS, endJourney, type Profile, installExtension, makeProfile } from './lib/code-server';
import { ROOT, packagedVsix } from './lib/paths';
import { Journey } from './lib/steps';
import { paletteOffers, runCommand } from './lib/quick-input';
import { launchBrowser, notification, openWorkbench } from './lib/workbench';

describe('the MCP server from VS Code (code-server)', () => {
  it('copies a configuration that starts the extension’s MCP server over its own index', { timeout: 5 * 60_000 }, async () => {
    const journey = new Journey(`${new Date().toISOString().replace(/[:.]/g, '-')}-mcp`);
    const fake = new FakeOpenAIServer({ auto: true });
    let profile: Profile | null = null;
    let server: CodeServer | null = null;
    let browser: Browser | null = null;
    let passed = false;
    try {
      const storage = await journey.step('a profile whose DocQA data directory (its global storage) holds an index built with a local embedding model', async () => {
        await fake.start();
        // VS Code's AI features on (QUIET_SETTINGS turns them off): its MCP servers are one of them.
        profile = makeProfile({ ...QUIET_SETTINGS, 'chat.disableAIFeatures': false, 'docqa.chat.baseUrl': fake.baseURL, 'docqa.chat.model': 'fake-chat', 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': fake.baseURL, 'docqa.embedding.model': 'fake-embedding', 'docqa.embedding.dimensions': 16 });
        fs.mkdirSync(path.join(profile.root, 'workspace'), { recursive: true });
        const store = path.join(profile.userDataDir, 'User', 'globalStorage', 'docqa.docqa');
        const cli = makeCli({ DOCQA_HOME: store, DOCQA_EMBEDDING_BASE_URL: fake.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embedding', DOCQA_EMBEDDING_DIMENSIONS: '16' });
        cli.json(['sources', 'add', path.join(ROOT, 'test', 'fixtures', 'markdown', 'cell-notes.md'), '--json']);
        const built = await cli.runAsync(['index', '--yes']);
        assert.equal(built.code, 0, built.stderr);
        return store;
      });
      server = await journey.step('install the packaged extension and start code-server on 127.0.0.1', async () => {
        await installExtension(profile!, packagedVsix());
        return CodeServer.start(profile!, { disableWorkspaceTrust: true });
      });
      const page = await journey.step('open the workspace', async () => {
        browser = await launchBrowser(path.join(profile!.root, 'browser-home'));
        const p = await openWorkbench(browser, server!.folderUrl(path.join(profile!.root, 'workspace')));
        await p.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(p.url()).origin });
        journey.usePage(p);
        return p;
      });
      const config = await journey.step('"DocQA: Copy MCP Server Configuration" puts the configuration on the clipboard and says where to paste it', async () => {
        // The palette learns the extension's commands once the extension host has scanned it.
        for (const deadline = Date.now() + 60_000; !(await paletteOffers(page, 'DocQA: Copy MCP Server Configuration')); ) {
          if (Date.now() > deadline) throw new Error('the palette never offered DocQA: Copy MCP Server Configuration');
          await page.waitForTimeout(1000);
        }
        await runCommand(page, 'DocQA: Copy MCP Server Configuration');
        await notification(page, /the MCP server configuration is on the clipboard/).first().waitFor();
        // The page's own clipboard, as a paste into another program would read it (a string: the test's tsconfig has no DOM types).
        const text = await page.evaluate<string>('navigator.clipboard.readText()');
        return JSON.parse(text) as { mcpServers: { docqa: { command: string; args: string[]; env: Record<string, string> } } };
      });
      await journey.step('that configuration starts the CLI shipped in the extension over its data directory, with the local embedding endpoint and no key', async () => {
        const d = config.mcpServers.docqa;
        assert.equal(d.args.at(-1), 'mcp');
        assert.equal(d.args[d.args.indexOf('--store') + 1], storage);
        assert.match(d.args[0]!, /extensions\/docqa\.docqa-[\d.]+\/dist\/cli\.js$/);
        assert.deepEqual(d.env, { ELECTRON_RUN_AS_NODE: '1', DOCQA_EMBEDDING_PROVIDER: 'openai-compatible', DOCQA_EMBEDDING_BASE_URL: fake.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embedding', DOCQA_EMBEDDING_DIMENSIONS: '16' });
        const client = new Client({ name: 'e2e-claude-desktop-like', version: '1' });
        await client.connect(new StdioClientTransport({ command: d.command, args: d.args, env: { PATH: process.env.PATH ?? '', ...d.env }, stderr: 'pipe' }));
        try {
          const { tools } = await client.listTools();
          assert.deepEqual(tools.map((t) => t.name).sort(), ['get_outline', 'list_blocks', 'list_documents', 'scan_term', 'search_blocks']);
          const r = (await client.callTool({ name: 'search_blocks', arguments: { query: 'microscope' } })) as CallToolResult;
          const p = JSON.parse((r.content[0] as { text: string }).text) as { mode: string; blocks: Array<{ path: string; location_label: string }> };
          assert.equal(p.mode, 'hybrid');
          assert.equal(p.blocks[0]!.path, path.join(ROOT, 'test', 'fixtures', 'markdown', 'cell-notes.md'));
          assert.match(p.blocks[0]!.location_label, /^lines? \d+/);
        } finally {
          await client.close();
        }
      });
      await journey.step('VS Code lists the server DocQA’s provider registers, with no configuration (MCP: List Servers)', async () => {
        await runCommand(page, 'MCP: List Servers', { asks: true });
        // The servers' picker, not the palette that opened it (whose rows would be commands).
        const input = page.locator('.quick-input-widget input');
        for (const deadline = Date.now() + 30_000; (await input.inputValue()).startsWith('>'); await page.waitForTimeout(200)) if (Date.now() > deadline) throw new Error('the servers’ picker never opened');
        const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: /^DocQA/ }).first();
        await row.waitFor({ timeout: 30_000 });
        const labels = await page.locator('.quick-input-widget .monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
        assert.ok(labels.some((l) => l.startsWith('DocQA')) && !labels.some((l) => l.includes('Copy MCP')), JSON.stringify({ value: await input.inputValue(), labels }));
        await page.screenshot({ path: path.join(journey.dir, '06-mcp-servers-listed.png') });
        await page.keyboard.press('Escape');
      });
      await journey.step('VS Code starts it (MCP: List Servers → DocQA → Start Server): its log says Running and 5 tools', async () => {
        await runCommand(page, 'MCP: List Servers', { asks: true });
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: /^DocQA/ }).first().click();
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Start Server' }).first().click();
        // VS Code shows the server's output channel ("MCP: DocQA") as it starts it.
        const output = page.locator('.part.panel');
        await output.getByText('Connection state: Running').first().waitFor({ timeout: 60_000 });
        await output.getByText('Discovered 5 tools').first().waitFor({ timeout: 60_000 });
      });
      passed = true;
      recordTrials({ area: 'end to end', fault: 'the MCP configuration copied in VS Code, started as another client would', trials: 1, outcome: 'the five tools over the extension’s own index; no key in it' }, __filename);
    } finally {
      await endJourney(journey, { browser, server, profile, passed });
      await fake.close();
    }
  });
});
