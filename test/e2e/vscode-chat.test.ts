/**
 * DocQA inside VS Code's own chat, in a real VS Code (code-server 4.139.1 = VS Code 1.139): a small test
 * extension (test/e2e/fixtures/lm-test-extension) registers two language models backed by the fake model
 * server (vscode.lm.registerLanguageModelChatProvider). DocQA is set to answer with one, picked with
 * "DocQA: Pick VS Code Language Model": Test Connection checks that model, the panel answers with no DocQA
 * chat key; a DocQA tool is called through vscode.lm.invokeTool; @docqa is asked in the Chat view with the
 * extension's other model in the dropdown (the setting's model answers; once the setting is reset, the
 * dropdown's), its answer shows references, and one clicked opens the cited lines (measured: code-server's Chat view needs no GitHub sign-in for a model an
 * extension registers, once it is picked in the chat's model dropdown). Screenshots of @docqa in light and dark (DOCQA_DOC_IMAGES=1 copies them
 * to docs/images).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DataDir } from '../../src/common/data-dir';
import { loadSnapshot } from '../../src/index/store/snapshot-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { makeCli } from '../integration/cli';
import { recordTrials } from '../reliability/trials';
import { CodeServer, type Profile, QUIET_SETTINGS, dataDirOf, endJourney, installExtension, makeProfile } from './lib/code-server';
import { answerOnScreen, chatWebview } from './lib/first-hour';
import { ROOT, packagedVsix } from './lib/paths';
import { Journey } from './lib/steps';
import { eventually } from './lib/wait';
import { runCommand } from './lib/quick-input';
import { clearNotifications, expectedSelection, launchBrowser, notification, openWorkbench, selectionStatus, useDarkTheme } from './lib/workbench';

const DOC_IMAGES = path.join(ROOT, 'docs', 'images');
const QUESTION = 'What does the cell membrane do?';

/** The test extension packed as a .vsix (vsce, offline), into `dir`. */
function packTestExtension(dir: string): string {
  const src = path.join(ROOT, 'test', 'e2e', 'fixtures', 'lm-test-extension');
  const work = path.join(dir, 'lm-test-extension');
  fs.cpSync(src, work, { recursive: true });
  fs.writeFileSync(path.join(work, 'LICENSE'), 'MIT (test fixture)\n');
  const out = path.join(dir, 'docqa-lm-test.vsix');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '-o', out], { cwd: work, encoding: 'utf8' });
  assert.equal(r.status, 0, `vsce package failed:\n${r.stdout}\n${r.stderr}`);
  return out;
}

const docQaIcon = (page: Page) => page.locator('.part.activitybar .action-item a[aria-label^="DocQA"], .part.activitybar .action-label[aria-label^="DocQA"]').first();

/** The DocQA icon in the activity bar, clicked as a person does. */
async function openDocQa(page: Page): Promise<void> {
  if (await page.locator('.part.sidebar .composite.title', { hasText: 'DocQA' }).isVisible()) return;
  await docQaIcon(page).click();
  await page.locator('.part.sidebar .composite.title', { hasText: 'DocQA' }).waitFor();
}


/** The model each of DocQA's agent prompts went to (its prompt lists the tools; VS Code's own requests, a chat title, do not). */
const docQaModels = (requests: FakeOpenAIServer['requests']) =>
  requests.filter((r) => r.path.endsWith('/chat/completions') && JSON.stringify(r.body).includes('search_blocks')).map((r) => (r.body as { model?: string }).model);

/** The last response in VS Code's Chat view. */
const lastResponse = (page: Page) => page.locator('.interactive-session .interactive-item-container.interactive-response').last();

describe('DocQA in VS Code’s own chat (code-server)', () => {
  it('a VS Code language model answers in the panel with no DocQA key; a tool through vscode.lm.invokeTool; @docqa in the Chat view with references that open the cited lines', { timeout: 10 * 60_000 }, async () => {
    const journey = new Journey(`${new Date().toISOString().replace(/[:.]/g, '-')}-vscode-chat`);
    const fake = new FakeOpenAIServer({ auto: true });
    let profile: Profile | null = null;
    let server: CodeServer | null = null;
    let browser: Browser | null = null;
    let passed = false;
    try {
      const workspace = await journey.step('a keyword-only index of a note, built with the CLI into the extension’s data directory; DocQA’s own endpoint has no key', async () => {
        await fake.start();
        // A cloud endpoint with no key: only a VS Code model can answer.
        profile = makeProfile({ ...QUIET_SETTINGS, 'chat.disableAIFeatures': false, 'docqa.chat.baseUrl': 'https://chat.example.invalid/v1', 'docqa.embedding.provider': 'none' });
        const ws = path.join(profile.root, 'workspace');
        fs.mkdirSync(ws);
        fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'markdown', 'cell-notes.md'), path.join(ws, 'cell-notes.md'));
        const cli = makeCli({ DOCQA_HOME: dataDirOf(profile, 'docqa.docqa'), DOCQA_EMBEDDING_PROVIDER: 'none' });
        cli.json(['sources', 'add', ws, '--json']);
        assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
        return ws;
      });

      server = await journey.step('install DocQA and the test language model extension; start code-server', async () => {
        await installExtension(profile!, packagedVsix());
        await installExtension(profile!, packTestExtension(profile!.root));
        return CodeServer.start(profile!, { disableWorkspaceTrust: true, env: { DOCQA_TEST_LM_URL: fake.baseURL } });
      });

      const page = await journey.step('open the workspace', async () => {
        browser = await launchBrowser(path.join(profile!.root, 'browser-home'));
        const p = await openWorkbench(browser, server!.folderUrl(workspace));
        journey.usePage(p);
        // With VS Code's AI features on, code-server registers an extension that contributes a chat
        // participant only once its chat setup has given up on a GitHub sign-in (measured: 5-10 s).
        const started = Date.now();
        await docQaIcon(p).waitFor({ timeout: 90_000 });
        console.log(`e2e vscode chat: DocQA's contributions appeared ${Date.now() - started} ms after the workbench`);
        return p;
      });

      await journey.step('DocQA: Pick VS Code Language Model offers the test model; picking it sets docqa.chat.provider', async () => {
        await runCommand(page, 'DocQA: Pick VS Code Language Model', { asks: true });
        const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'DocQA Test Model' }).first();
        await row.waitFor();
        await row.click();
        // VS Code may ask the person's consent for another extension's model: allowed, as a person would.
        const allow = page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Allow/ }).first();
        const told = notification(page, 'DocQA: questions are answered by DocQA Test Model (no DocQA chat key needed).');
        await eventually('the consent dialog or the confirmation', async () => (await allow.isVisible()) || (await told.isVisible()), 30_000, 200);
        if (await allow.isVisible()) await allow.click();
        await told.waitFor();
      });

      await journey.step('DocQA: Test Connection checks the picked VS Code model (one tiny request through it), not DocQA’s keyless endpoint', async () => {
        await clearNotifications(page);
        const before = fake.requests.length;
        await runCommand(page, 'DocQA: Test Connection');
        await notification(page, /DocQA: The VS Code language model DocQA Test Model answered in \d+ ms\./).waitFor();
        const sent = fake.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
        assert.deepEqual(sent.map((r) => (r.body as { model?: string }).model), ['docqa-test-model'], 'one request, through the picked model');
        assert.match(JSON.stringify(sent[0]!.body), /Reply with OK\./);
        assert.equal(await notification(page, /chat API key|chat\.example\.invalid/).count(), 0, 'DocQA’s own endpoint was not what Test Connection checked');
        // The embedding check is as before: keyword-only here.
        await notification(page, /DocQA: Keyword-only search/).waitFor();
        await clearNotifications(page);
      });

      await journey.step('the panel answers through the VS Code model, with no DocQA chat key set', async () => {
        await openDocQa(page);
        const chat = await chatWebview(page);
        const before = fake.requests.length;
        const box = chat.frame.locator('textarea#question');
        await box.click();
        await box.pressSequentially(QUESTION);
        await box.press('Enter');
        await eventually('the answer to be released', async () => (await chat.frame.locator('.turn.done').count()) === 1, 90_000, 250);
        const turn = chat.frame.locator('.turn').last();
        assert.match(await turn.locator('.release-head').innerText(), /SUCCESS/);
        // The answer and its first citation chip, inside the visible panel.
        await answerOnScreen(page, chat, turn);
        const models = fake.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions')).map((r) => (r.body as { model?: string }).model);
        assert.ok(models.length >= 2 && models.every((m) => m === 'docqa-test-model'), `every model call went through the VS Code model: ${JSON.stringify(models)}`);
      });

      await journey.step('a DocQA tool through vscode.lm.invokeTool: five tools registered, a result that keeps its refs', async () => {
        await runCommand(page, 'DocQA Test: Invoke DocQA Search Tool');
        const file = path.join(workspace, 'tool-result.txt');
        await eventually('the tool result', () => fs.existsSync(file), 30_000, 200);
        const text = fs.readFileSync(file, 'utf8');
        assert.match(text, /^tools: docqa_get_outline docqa_list_blocks docqa_list_documents docqa_scan_term docqa_search_blocks\n# docqa_search_blocks \(DocQA, read-only/);
        assert.match(text, /ref: [^#\s]+#[^#\s]+/);
        assert.match(text, /doc_title: /);
      });

      await journey.step('@docqa in the Chat view, with no GitHub sign-in: another model picked in the chat’s dropdown, the model docqa.chat.provider names answers', async () => {
        // The question typed into the Chat view, the other test model picked in its model dropdown, then
        // sent: docqa.chat.provider is set (by DocQA's pick above), so @docqa answers with DocQA Test Model.
        const before = fake.requests.length;
        await runCommand(page, 'DocQA Test: Ask @docqa in the Chat View');
        const input = page.locator('.interactive-input-part').last();
        await input.waitFor();
        await input.getByText(/Models|Auto|DocQA (Test|Other) Model/).first().click();
        const row = page.locator('.action-widget .monaco-list-row, .quick-input-widget .monaco-list-row', { hasText: 'DocQA Other Model' }).first();
        await row.waitFor();
        await row.click();
        await input.locator('.interactive-input-editor').click();
        await page.keyboard.press('End');
        await page.keyboard.press('Enter');
        await lastResponse(page).filter({ hasText: 'SUCCESS' }).waitFor({ timeout: 90_000 });
        const steps = lastResponse(page).getByText(/^(Completed|Used) /).first();
        if (await steps.isVisible()) await steps.click();
        await page.waitForTimeout(500);
        const said = await lastResponse(page).innerText();
        console.log(`e2e vscode chat: @docqa's response: ${JSON.stringify(said)}`);
        // Each verified citation of a note is a reference: the list names the file and the cited lines.
        await lastResponse(page).getByText(/^Used \d+ references?$/).click();
        await eventually('the references listed', async () => /cell-notes\.md:\d+-\d+/.test(await lastResponse(page).innerText()), 10_000, 200);
        assert.match(said, /From your notes:/);
        assert.match(said, /Ledger: chat tokens [\d,]+ of [\d,]+ · largest context [\d,]+ of 64,000/, 'the ledger, with the context budget capped at the model’s input limit');
        assert.ok((await lastResponse(page).getByRole('button', { name: 'Open trace' }).count()) === 1, 'a button opens the trace');
        const models = docQaModels(fake.requests.slice(before));
        assert.ok(models.length >= 2 && models.every((m) => m === 'docqa-test-model'), `the setting's model answered, not the dropdown's: ${JSON.stringify(models)}`);
      });

      await journey.step('a citation of the @docqa answer clicked: the cited lines open selected', async () => {
        const link = lastResponse(page).locator('a', { hasText: '[1]' }).first();
        const href = (await link.getAttribute('data-href')) ?? (await link.getAttribute('href')) ?? '';
        const [arg] = JSON.parse(decodeURIComponent(href.slice(href.indexOf('?') + 1))) as [{ ref: string; snapshot_id: string }];
        const dir = new DataDir(dataDirOf(profile!, 'docqa.docqa'));
        const snapshot = await loadSnapshot(dir, arg.snapshot_id);
        const [docId, blockId] = arg.ref.split('#');
        const doc = snapshot.documents.find((d) => d.doc_id === docId)!;
        const at = doc.blocks.find((b) => b.block_id === blockId)!.location as { kind: string; line_start: number; line_end: number };
        assert.equal(at.kind, 'lines');
        await link.click();
        const expected = expectedSelection(fs.readFileSync(path.join(workspace, 'cell-notes.md'), 'utf8'), at.line_start, at.line_end);
        await eventually(`the status bar to show ${expected}`, async () => (await selectionStatus(page).innerText().catch(() => '')) === expected, 20_000, 200);
        await page.screenshot({ path: path.join(journey.dir, 'docqa-chat-light.png') });
        recordTrials({ area: 'vscode chat', fault: '@docqa answered in the Chat view by a VS Code language model, a citation clicked', trials: 1, outcome: 'the cited lines open selected' }, __filename);
      });

      await journey.step('dark theme: @docqa answering', async () => {
        await useDarkTheme(page);
        await page.waitForTimeout(500);
        await page.screenshot({ path: path.join(journey.dir, 'docqa-chat-dark.png') });
        if (process.env.DOCQA_DOC_IMAGES === '1') {
          fs.mkdirSync(DOC_IMAGES, { recursive: true });
          for (const name of ['docqa-chat-light.png', 'docqa-chat-dark.png']) fs.copyFileSync(path.join(journey.dir, name), path.join(DOC_IMAGES, name));
        }
      });
      await journey.step('a follow-up in the same chat, docqa.chat.provider reset: the dropdown’s model answers, the earlier @docqa turn is the conversation section of its prompts', async () => {
        await runCommand(page, "DocQA Test: Reset DocQA's Chat Provider Setting");
        const seen = path.join(workspace, 'chat-provider.json');
        await eventually('the setting reset in the extension host', () => fs.existsSync(seen), 30_000, 100);
        assert.deepEqual(JSON.parse(fs.readFileSync(seen, 'utf8')), { globalValue: null });
        const before = fake.requests.length;
        const responses = await page.locator('.interactive-session .interactive-item-container.interactive-response').count();
        await page.locator('.interactive-input-part').last().locator('.interactive-input-editor').click();
        await page.keyboard.type('Where is it?');
        await page.keyboard.press('Enter');
        await eventually('the follow-up answered', async () => (await page.locator('.interactive-session .interactive-item-container.interactive-response').count()) === responses + 1 && /Ledger:/.test(await lastResponse(page).innerText()), 90_000, 250);
        const sent = fake.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions')).map((r) => JSON.stringify(r.body));
        assert.ok(sent.length > 0 && sent.every((b) => b.includes(QUESTION) && b.includes('Mitochondria are the powerhouse of the cell.')), 'every prompt of the follow-up holds the earlier question and its answer');
        const models = docQaModels(fake.requests.slice(before));
        assert.ok(models.length >= 1 && models.every((m) => m === 'docqa-other-model'), `with the setting unset, the dropdown's model answered: ${JSON.stringify(models)}`);
        assert.match(await lastResponse(page).innerText(), /largest context [\d,]+ of 32,000/, 'the budget is the dropdown model’s own input limit');
      });

      passed = true;
    } finally {
      await endJourney(journey, { browser, server, profile, passed });
      await fake.close();
    }
  });
});
