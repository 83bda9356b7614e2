/**
 * The first journey, in a real VS Code (code-server 4.139.1, VS Code 1.139.1) driven through Debian's
 * Chromium: the packaged .vsix installed into a fresh profile, a workspace of the Markdown fixtures, the
 * fake model server on 127.0.0.1 in this process. Run by `npm run test:e2e` (not part of `npm test`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import { DataDir } from '../../src/common/data-dir';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { type Document } from '../../src/shared/document';
import { loadSnapshot, readActiveId } from '../../src/index/store/snapshot-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { recordTrials } from '../reliability/trials';
import { CodeServer, QUIET_SETTINGS, endJourney, dataDirOf, type Profile, extensionActivations, extensionHostStarted, installExtension, listExtensions, makeProfile } from './lib/code-server';
import { packZhCnLanguagePack } from './lib/language-pack';
import { ROOT, packagedVsix } from './lib/paths';
import { connectionSteps } from './lib/connection-steps';
import { saveAsNote } from './lib/save-note';
import { Journey } from './lib/steps';
import { eventually } from './lib/wait';
import { answerCommand, paletteOffers, runCommand } from './lib/quick-input';
import { activeTab, clearNotifications, ctrlClick, closeModalEditor, expectedSelection, installFromVsix, launchBrowser, listRow, modalDialog, notification, openFile, openWorkbench, restrictedModeIndicator, selectionStatus, statusBarItem, switchDisplayLanguage, trustWorkspace, webviewFrame, webviewWith } from './lib/workbench';

const INSPECT = 'DocQA: Inspect Document Structure';
const CHAT_KEY = 'sk-e2e-journey-key-5150';
const FILE = 'cell-notes.md';


const PLANTED_KEY = 'AKIAIOSFODNN7EXAMPLE';

/** A workspace made of copies of the Markdown fixtures (the top-level ones). */
function makeWorkspace(profile: Profile): string {
  const dir = path.join(profile.root, 'workspace');
  fs.mkdirSync(dir);
  const source = path.join(ROOT, 'test', 'fixtures', 'markdown');
  for (const name of fs.readdirSync(source).filter((n) => n.endsWith('.md'))) fs.copyFileSync(path.join(source, name), path.join(dir, name));
  // A text note, and a broken PDF that must be listed as failed with its reason.
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'text', 'study-plan.txt'), path.join(dir, 'study-plan.txt'));
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'bad', 'encrypted.pdf'), path.join(dir, 'encrypted.pdf'));
  // A PDF next to the notes: its citations open in DocQA's page view.
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'pdf', 'photosynthesis-en.pdf'), path.join(dir, 'photosynthesis-en.pdf'));
  // A secret-looking file next to the notes: listed as skipped, never read, never sent.
  fs.writeFileSync(path.join(dir, '.env'), `AWS_ACCESS_KEY_ID=${PLANTED_KEY}\n`);
  // A workspace trying to send the keys elsewhere: endpoint settings are user settings only, so this is ignored.
  fs.mkdirSync(path.join(dir, '.vscode'));
  fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({ 'docqa.chat.baseUrl': 'http://127.0.0.1:9/v1', 'docqa.embedding.baseUrl': 'http://127.0.0.1:9/v1' }));
  return dir;
}

describe('first journey: inspect a Markdown file in VS Code (code-server)', () => {
  // A bound for CI: every wait inside is bounded too; on a timeout the process exit kills code-server's group.
  it('installs, activates, inspects, indexes, answers in the chat and opens citations at their lines', { timeout: 8 * 60_000 }, async () => {
    const run = `${new Date().toISOString().replace(/[:.]/g, '-')}-first-journey`;
    const journey = new Journey(run);
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string; displayName: string };
    const extensionId = `${manifest.publisher}.${manifest.name}`;
    // The fake model and embedding server; with nothing scripted a tiny automatic agent answers.
    const fake = new FakeOpenAIServer({ auto: true, apiKey: CHAT_KEY });
    let profile: Profile | null = null;
    let server: CodeServer | null = null;
    let browser: Browser | null = null;
    let passed = false;
    const started = Date.now();
    try {
      profile = await journey.step('install the packaged extension into a fresh profile, its endpoints set to the fake server', async () => {
        await fake.start();
        // The fake checks one key for both services: the journey enters it for both.
        const p = makeProfile({ ...QUIET_SETTINGS, 'docqa.chat.baseUrl': fake.baseURL, 'docqa.chat.model': 'fake-chat', 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': fake.baseURL, 'docqa.embedding.model': 'fake-embedding', 'docqa.embedding.dimensions': 16 });
        await installExtension(p, packagedVsix());
        assert.deepEqual(await listExtensions(p), [`${extensionId}@${manifest.version}`]);
        return p;
      });
      const workspace = makeWorkspace(profile);
      const file = path.join(workspace, FILE);

      server = await journey.step('start code-server on 127.0.0.1', async () => {
        return CodeServer.start(profile!, {
          // The extension reads its endpoints from the user settings above; nothing reaches another host.
          env: {
            DOCQA_HOME: path.join(profile!.home, 'docqa'),
            DOCQA_CHAT_BASE_URL: fake.baseURL,
            DOCQA_CHAT_MODEL: 'fake-chat',
            DOCQA_CHAT_API_KEY: 'sk-e2e-fake-chat-key',
            DOCQA_EMBEDDING_BASE_URL: fake.baseURL,
            DOCQA_EMBEDDING_MODEL: 'fake-embedding',
            DOCQA_EMBEDDING_API_KEY: 'sk-e2e-fake-embedding-key',
          },
        });
      });

      const page: Page = await journey.step('open the fixture workspace: the workbench loads in Restricted Mode', async () => {
        browser = await launchBrowser(path.join(profile!.root, 'browser-home'));
        const p = await openWorkbench(browser, server!.folderUrl(workspace));
        journey.usePage(p);
        await restrictedModeIndicator(p).waitFor();
        for (const name of fs.readdirSync(workspace)) await p.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).waitFor();
        await eventually('the extension host to start (its log)', () => extensionHostStarted(profile!));
        return p;
      });

      const activated = () => extensionActivations(profile!).filter((a) => a.id === extensionId);
      await journey.step('in Restricted Mode DocQA is offered (limited) but indexes nothing of the workspace without consent; it activated only when its command ran', async () => {
        await eventually(`"${INSPECT}" in the palette`, () => paletteOffers(page, INSPECT), 15_000, 500);
        assert.deepEqual(activated(), [], 'DocQA activated before its command ran (activationEvents should stay empty)');
        await runCommand(page, 'DocQA: Add All Workspace Folders');
        const dialog = await modalDialog(page, 'DocQA: this workspace is in Restricted Mode. Index its files anyway?');
        await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
        await dialog.waitFor({ state: 'detached' });
        await eventually('DocQA to activate', () => activated().length > 0, 15_000, 250);
        assert.equal(fs.existsSync(path.join(dataDirOf(profile!, extensionId), 'sources.json')), false, 'no source was added');
      });

      await journey.step('trust the folder: the Restricted Mode indicator goes away', () => trustWorkspace(page));

      await journey.step(`open ${FILE}`, () => openFile(page, FILE));

      const doc: Document = await journey.step(`"${INSPECT}" opens the inspect webview with the document's sections`, async () => {
        const outcome = await ingestFile(file, { doc_id: '(unregistered)', source_label: 'workspace', aliases: [] }, DEFAULT_INGEST_OPTIONS);
        assert.ok(outcome.ok, 'the fixture ingests');
        await runCommand(page, INSPECT);
        await activeTab(page, `Inspect: ${FILE}`).waitFor();
        const view = await webviewFrame(page);
        await view.locator('h1', { hasText: outcome.document.title }).waitFor();
        assert.deepEqual(await view.locator('ul.sections li .title').allInnerTexts(), outcome.document.sections.map((s) => s.title));
        assert.equal(await view.locator('ol.blocks > li').count(), outcome.document.blocks.length);
        return outcome.document;
      });

      await journey.step('the extension was activated once, by its first command, and Developer: Show Running Extensions lists it', async () => {
        assert.deepEqual(activated(), [{ id: extensionId, startup: false, event: 'onCommand:docqa.addWorkspaceFolders' }]);
        await runCommand(page, 'Developer: Show Running Extensions');
        const row = await listRow(page, page.locator('.runtime-extensions-editor'), manifest.name);
        // The manifest names it through package.nls.json, as VS Code shows it.
        const nls = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
        assert.equal(await row.locator('.name').innerText(), nls[manifest.displayName.replace(/^%|%$/g, '')] ?? manifest.displayName);
        assert.match(await row.locator('.activation-time').innerText(), /^Activation: \d+ms$/);
      });

      await journey.step("clicking a block opens the file with the block's lines selected", async () => {
        await closeModalEditor(page); // Running Extensions: the inspect view is in front again
        await activeTab(page, `Inspect: ${FILE}`).waitFor();
        const block = doc.blocks.find((b) => b.location.kind === 'lines' && b.location.line_end > b.location.line_start);
        const at = block?.location;
        assert.ok(block && at?.kind === 'lines', `${FILE} has a block over several lines`);
        const view = await webviewFrame(page);
        await view.locator('ol.blocks > li').nth(block.block_index).locator('button').click();
        await activeTab(page, FILE).waitFor();
        const want = expectedSelection(fs.readFileSync(file, 'utf8'), at.line_start, at.line_end);
        await selectionStatus(page).filter({ hasText: want }).waitFor({ timeout: 10_000 }).catch(async () => {
          assert.fail(`status bar shows "${await selectionStatus(page).innerText().catch(() => '(nothing)')}", expected "${want}" (block ${block.block_id}, lines ${at.line_start}-${at.line_end})`);
        });
      });

      await journey.step('inspect is offline: no request reached the model or embedding server', async () => {
        assert.deepEqual(fake.requests.map((r) => r.path), []);
      });

      await journey.step('the DocQA view container opens with the chat in front and the lists collapsed; Sources, opened, explains the two keys, with buttons to set them', async () => {
        await runCommand(page, 'View: Show DocQA');
        const header = page.locator('.part.sidebar .pane-header', { hasText: 'Sources' }).first();
        await header.waitFor();
        if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
        const welcome = page.locator('.welcome-view-content', { hasText: 'It needs two keys' });
        await welcome.waitFor();
        assert.ok(await welcome.locator('a.monaco-button, .monaco-button', { hasText: 'Set Chat API Key' }).count() > 0, 'a button sets the chat key');
      });

      await connectionSteps(journey, page, fake, profile!, CHAT_KEY);

      await journey.step('add the workspace folder: it builds at once; the egress confirmation says what goes where and lists the skipped .env; progress, then ready', async () => {
        await clearNotifications(page);
        const mark = fake.requests.length;
        await runCommand(page, 'DocQA: Add All Workspace Folders');
        // Adding builds at once: the egress confirmation comes first.
        await notification(page, 'DocQA: added workspace; indexing it now.').waitFor();
        const dialog = await modalDialog(page, /DocQA: send \d+ files \(\d+ blocks, about [\d,]+ tokens at most\) of “workspace” to 127\.0\.0\.1:\d+ to be embedded\?/);
        assert.match(await dialog.innerText(), /Not read and not sent \(1\):\s*• .*\.env \(looks like a secret\)/);
        assert.deepEqual(fake.requests.slice(mark), [], 'nothing is sent before the answer');
        await dialog.locator('.monaco-button', { hasText: 'Send and Build' }).click();
        await notification(page, /DocQA: the index is ready with \d+ documents; 1 could not be indexed\./).waitFor({ timeout: 60_000 });
        await statusBarItem(page, 'DocQA: partial, 1 failed').waitFor();
        assert.ok(fake.requests.some((r) => r.path === '/v1/embeddings' && (r.body.input as string[]).length > 0), 'the blocks were embedded');
        assert.ok(!fake.embeddedInputs.join('\n').includes(PLANTED_KEY), 'the planted key never reached an embedding request');
        recordTrials({ area: 'egress', fault: 'a .env with a key in the workspace, built from VS Code', trials: 1, outcome: 'listed as not read in the confirmation; the key in no embedding request' }, __filename);
      });

      await journey.step('the Sources view lists the workspace folder with its documents, the Snapshots view the active snapshot', async () => {
        const sources = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Sources' }) });
        const row = sources.locator('.monaco-list-row', { hasText: 'workspace' });
        await row.waitFor();
        await row.click();
        for (const title of ['Cell Biology Notes', '中国历史笔记']) await sources.locator('.monaco-list-row', { hasText: title }).waitFor();
        const failed = sources.locator('.monaco-list-row', { hasText: 'encrypted.pdf' });
        await failed.waitFor();
        assert.match(await failed.innerText(), /failed: \w+\/encrypted/);
        const snapshots = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Snapshots' }) });
        // A collapsed pane shows no rows: opened as a person would, instead of waiting out a timeout first.
        const header = snapshots.locator('.pane-header');
        if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
        await snapshots.locator('.monaco-list-row', { hasText: '●' }).first().waitFor();
      });

      await journey.step('edit a source file: an incremental rebuild runs by itself and embeds only the new text', async () => {
        const before = fake.embeddedInputs.length;
        fs.appendFileSync(file, '\n\n## Vacuoles\n\nThe marker zebrafish-vacuole-42 was added after the first build.\n');
        await eventually('the edited note to be embedded again', () => fake.embeddedInputs.slice(before).some((t) => t.includes('zebrafish-vacuole-42')), 60_000, 250);
        const snapshots = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Snapshots' }) });
        await eventually('a second snapshot in the Snapshots view', async () => (await snapshots.locator('.monaco-list-row').count()) >= 2, 60_000, 250);
        await statusBarItem(page, 'DocQA: partial, 1 failed').waitFor();
        const again = fake.embeddedInputs.slice(before);
        assert.ok(again.every((t) => !t.includes('中国') && !t.includes('张骞')), `only the edited note was embedded again: ${JSON.stringify(again)}`);
      });

      const ask = async (question: string) => {
        const chat = await webviewWith(page, 'textarea');
        const turns = await chat.locator('.turn').count();
        await chat.locator('textarea').fill(question);
        await chat.locator('textarea').press('Enter');
        // A ledger shows while the run goes on; the turn is done once it is released.
        await eventually('the answer to be released', async () => (await chat.locator('.turn').count()) === turns + 1 && (await chat.locator('.turn.done').count()) === turns + 1, 60_000, 250);
        return { chat, turn: chat.locator('.turn').last() };
      };
      await journey.step('ask in English in the Chat view: the steps say what was searched, the answer streams in, chips show titles, the ledger shows tokens', async () => {
        await runCommand(page, 'View: Show DocQA');
        const { turn } = await ask('What does the cell membrane do?');
        // The steps fold once the answer is there: a click opens them, as a person would.
        await turn.locator('details.steps > summary').click();
        assert.match(await turn.locator('.steps').innerText(), /Searching all \d+ documents for “What does the cell membrane do\?”: \d+ blocks/);
        assert.match(await turn.locator('.chip').first().innerText(), /^1 · Cell Biology Notes · /);
        assert.match(await turn.locator('.ledger').innerText(), /tokens/);
      });

      /** The first citation of turn `n` (0-based) as the extension saved it, with its document and block from the active snapshot. */
      const citedBlock = async (n: number) => {
        const dir = new DataDir(dataDirOf(profile!, extensionId));
        const snapshot = await loadSnapshot(dir, (await readActiveId(dir))!);
        const [store] = fs.readdirSync(path.join(dir.root, 'conversations'));
        const [conversation] = fs.readdirSync(path.join(dir.root, 'conversations', store!));
        type Saved = { turns: Array<{ result: { citations: Array<{ doc_id: string; block_id: string }> } | null }> };
        const read = () => JSON.parse(fs.readFileSync(path.join(dir.root, 'conversations', store!, conversation!), 'utf8')) as Saved;
        // The view shows the release as it streams; the turn is written just after.
        await eventually(`turn ${n + 1} to be saved with its result`, () => Boolean(read().turns[n]?.result), 10_000, 100);
        const cited = read().turns[n]!.result!.citations[0]!;
        const doc = snapshot.documents.find((d) => d.doc_id === cited.doc_id)!;
        return { doc, block: doc.blocks.find((b) => b.block_id === cited.block_id)! };
      };
      await journey.step('click the Markdown citation: its file opens with the cited lines selected', async () => {
        const { chat } = { chat: await webviewWith(page, '.chip') };
        const { doc, block } = await citedBlock(0);
        assert.equal(block.location.kind, 'lines');
        const at = block.location as { line_start: number; line_end: number };
        await chat.locator('.turn').last().locator('.chip').first().click();
        await activeTab(page, path.basename(doc.path)).waitFor();
        const want = expectedSelection(fs.readFileSync(doc.path, 'utf8'), at.line_start, at.line_end);
        await selectionStatus(page).filter({ hasText: want }).waitFor({ timeout: 10_000 });
      });

      await journey.step('ask in Chinese: the steps and the answer are there, the chip names the Chinese note', async () => {
        const { turn } = await ask('张骞出使西域的目的是什么？');
        assert.ok((await turn.locator('.chip').count()) > 0, 'the answer cites');
        assert.match(await turn.locator('.chip').first().innerText(), /中国历史笔记/);
      });

      await journey.step('the next answer after the edit cites the new text', async () => {
        const { turn } = await ask('What was added about zebrafish-vacuole-42?');
        await turn.locator('.chip').first().waitFor();
        assert.match(await turn.locator('.answer').innerText(), /zebrafish-vacuole-42/);
        assert.match(await turn.locator('.chip').first().innerText(), /Cell Biology Notes · .*Vacuoles/);
      });

      await journey.step('ask about the PDF and click its citation: the PDF page view opens on that page with the block highlighted', async () => {
        const { turn } = await ask('What happens in the Calvin cycle?');
        const { doc, block } = await citedBlock(3);
        assert.equal(path.basename(doc.path), 'photosynthesis-en.pdf');
        assert.equal(block.location.kind, 'page');
        await turn.locator('.chip').first().click();
        const page_ = (block.location as { page: number }).page;
        // The tab carries the document's title, as the chip does; the view's header names the file.
        await page.locator('.tabs-container .tab.active', { hasText: `${doc.title} — p. ${page_}` }).waitFor({ timeout: 30_000 });
        const logs: string[] = [];
        page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
        const pdf = await webviewWith(page, '.hl', 30_000).catch(async (err: unknown) => {
          const v = await webviewWith(page, '.page-input', 5000).catch(() => null);
          throw new Error(`${String(err)}; view: ${v ? await v.locator('body').innerText() : '(none)'}; console: ${logs.join(' | ')}`);
        });
        assert.ok((await pdf.locator('.hl').count()) > 0, 'the block is highlighted');
      });

      await journey.step("save the PDF answer as a note and follow its link: DocQA's PDF page view opens at the cited page, highlighted (not the raw file)", async () => {
        const { doc, block } = await citedBlock(3);
        const page_ = (block.location as { page: number }).page;
        await runCommand(page, 'View: Close All Editors');
        const notes = path.join(profile!.root, 'kept-notes');
        fs.mkdirSync(notes, { recursive: true });
        const chat = await webviewWith(page, '.turn');
        const md = fs.readFileSync(path.join(notes, await saveAsNote(page, chat.locator('.turn').last(), notes)), 'utf8');
        assert.ok(md.includes(`photosynthesis-en.pdf#page=${page_}&docqa=${encodeURIComponent(`${doc.doc_id}#${block.block_id}`)})`), `the note links the cited page and block: ${md}`);
        // Ctrl+click on the link in the note's editor, as a person follows a link in Markdown.
        const link = page.locator('.editor-instance .monaco-editor .view-line span', { hasText: 'photosynthesis-en.pdf#page=' }).filter({ visible: true }).first();
        await link.waitFor();
        const tab = page.locator('.tabs-container .tab.active', { hasText: `${doc.title} — p. ${page_}` });
        await eventually('the PDF page view to open from the note’s link', async () => {
          if (await tab.isVisible()) return true;
          await ctrlClick(page, link);
          return tab.waitFor({ timeout: 10_000 }).then(() => true, () => false);
        }, 60_000, 500);
        const pdf = await webviewWith(page, '.hl', 30_000);
        assert.equal(await pdf.locator('.page').getAttribute('data-page'), String(page_));
        const box = await pdf.locator('.hl').first().boundingBox();
        assert.ok(box && box.width > 0, 'the highlighted block is drawn');
      });

      await journey.step("open the last answer's trace from the chat: the span tree and manifest are there; Replay retrieval says identical", async () => {
        const chat = await webviewWith(page, '.turn');
        await chat.locator('.turn').last().locator('.ledger button', { hasText: 'Open trace' }).click();
        const view = await webviewWith(page, '[data-testid="span-list"] .span-row', 30_000);
        assert.equal(await view.locator('[data-testid="question"]').innerText(), 'What happens in the Calvin cycle?');
        assert.ok((await view.locator('[data-testid="manifest"] tr[data-field="config hash"]').count()) === 1);
        await view.locator('[data-testid="replay"]').click();
        await view.locator('[data-testid="replay-result"]').waitFor({ timeout: 30_000 });
        assert.match(await view.locator('[data-testid="replay-result"]').innerText(), /All \d+ results identical\./);
      });

      await journey.step('reload the window: the conversation is still in the Chat view', async () => {
        await runCommand(page, 'Developer: Reload Window');
        await page.locator('.monaco-workbench').waitFor();
        // The DocQA container was open before the reload, and opens again with the window.
        const chat = await webviewWith(page, '.turn', 60_000);
        await eventually('the four turns restored', async () => (await chat.locator('.turn').count()) === 4, 30_000, 250);
        assert.match(await chat.locator('.turn').first().innerText(), /What does the cell membrane do\?/);
      });

      // The display language, switched as a person does it. The pack installed has no translations of
      // VS Code's own strings (the real one is not on the npm registry): the workbench stays English, but
      // VS Code runs in zh-cn, and that is all DocQA's own strings need.
      await journey.step('switch the display language: a zh-cn pack installed with "Extensions: Install from VSIX...", 中文(简体) picked in "Configure Display Language", restart', async () => {
        const vsix = await packZhCnLanguagePack(profile!.root);
        await clearNotifications(page);
        await installFromVsix(page, vsix);
        await switchDisplayLanguage(page, '中文(简体)');
      });

      await journey.step("in Chinese: DocQA's view container, views and commands have their zh-cn names; its messages (vscode.l10n.t) are Chinese", async () => {
        const zh = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.nls.zh-cn.json'), 'utf8')) as Record<string, string>;
        const l10n = JSON.parse(fs.readFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
        // The DocQA container was open before the restart and opens again with the window.
        await page.locator('.part.sidebar .composite.title', { hasText: zh['viewsContainer.docqa.title']! }).waitFor({ timeout: 60_000 });
        for (const key of ['view.chat.name', 'view.sources.name', 'view.snapshots.name']) await page.locator('.part.sidebar .pane-header', { hasText: zh[key]! }).first().waitFor();
        const setKey = `DocQA: ${zh['command.setChatKey.title']!}`;
        await eventually(`"${setKey}" in the palette`, () => paletteOffers(page, setKey), 30_000, 500);
        await answerCommand(page, setKey, l10n['DocQA: Chat API Key']!, CHAT_KEY);
        await notification(page, l10n['DocQA: the chat API key is saved.']!).waitFor();
      });

      await journey.step('the keys are on no disk (user-data folder, data directory) and in no request body (prompts, embedding inputs)', async () => {
        let files = 0;
        for (const dir of [profile!.root]) {
          for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
            const p = path.join(dir, f);
            if (fs.statSync(p).isFile() && fs.statSync(p).size < 50_000_000) {
              assert.ok(!fs.readFileSync(p).includes(CHAT_KEY), `${f} holds the key`);
              files++;
            }
          }
        }
        // Nor in any prompt or embedding input: only the Authorization header carries it.
        assert.ok(fake.requests.length > 0);
        for (const r of fake.requests) assert.ok(!JSON.stringify(r.body).includes(CHAT_KEY), `a ${r.path} request body holds the key`);
        recordTrials({ area: 'egress', fault: 'both API keys after a whole VS Code journey: every file of the profile and data directory', trials: files, outcome: 'the key is in no file' }, __filename);
        recordTrials({ area: 'egress', fault: 'both API keys in the requests of a whole VS Code journey', trials: fake.requests.length, outcome: 'only in the Authorization header; in no prompt and no embedding input' }, __filename);
      });
      passed = true;
    } finally {
      await endJourney(journey, { browser, server, profile, passed });
      await fake.close();
      const timings = journey.records.map((r) => `${String(r.index).padStart(2, '0')} ${r.ms} ms  ${r.name}`).join('\n  ');
      console.log(`e2e journey ${passed ? 'passed' : 'FAILED'} in ${Date.now() - started} ms; screenshots in ${journey.dir}\n  ${timings}`);
    }
  });
});
