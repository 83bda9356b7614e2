/**
 * The learner's first hour, in a real VS Code (code-server 4.139.1 = VS Code 1.139) with VS Code's own
 * chat and side bars as a new install has them, at 1280 × 800 and at 1500 × 950: the chat has room to
 * read (the answer and a chip inside the visible webview, measured, then clicked), the walkthrough checks
 * its steps off from what happened, a source added is built without "Rebuild Index", an @-scoped
 * question's tool calls carry only that document (the fake server's request log), and a saved note's
 * links open the cited spots. Screenshots of the first screen, the walkthrough and a scoped answer, in
 * light and dark, are written for docs/images (DOCQA_DOC_IMAGES=1 copies them there).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DataDir } from '../../src/common/data-dir';
import { loadSnapshot, readActiveId } from '../../src/index/store/snapshot-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { observationsOf } from '../fakes/scripted-replies';
import { recordTrials } from '../reliability/trials';
import { CodeServer, type Profile, dataDirOf, endJourney, installExtension, makeProfile, userSettings } from './lib/code-server';
import { saveAsNote } from './lib/save-note';
import { NEW_INSTALL_SETTINGS, answerOnScreen, chatWebview, notesWorkspace, stepDone, waitStepDone, walkthroughStep } from './lib/first-hour';
import { ROOT, packagedVsix } from './lib/paths';
import { Journey } from './lib/steps';
import { eventually } from './lib/wait';
import { answerCommand, runCommand } from './lib/quick-input';
import { activeTab, clearNotifications, clickNotificationButton, ctrlClick, expectedSelection, launchBrowser, modalDialog, notification, selectionStatus, statusBarItem, useDarkTheme } from './lib/workbench';

const KEY = 'sk-e2e-first-hour-7731';
const DOC_IMAGES = path.join(ROOT, 'docs', 'images');


async function openWorkbenchAt(browser: Browser, url: string, size: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport: size });
  page.setDefaultTimeout(30_000);
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor();
  await page.locator('.part.statusbar').waitFor();
  return page;
}

/** The DocQA icon in the activity bar, clicked as a person does on a first visit. */
async function openDocQa(page: Page): Promise<void> {
  // A second click on the icon would close the side bar again.
  if (await page.locator('.part.sidebar .composite.title', { hasText: 'DocQA' }).isVisible()) return;
  const item = page.locator('.part.activitybar .action-item a[aria-label^="DocQA"], .part.activitybar .action-label[aria-label^="DocQA"]').first();
  await item.click();
  await page.locator('.part.sidebar .composite.title', { hasText: 'DocQA' }).waitFor();
}

async function ask(page: Page, question: string, o: { scopeQuery?: string } = {}) {
  const chat = await chatWebview(page);
  const turns = await chat.frame.locator('.turn').count();
  const box = chat.frame.locator('textarea#question');
  await box.click();
  if (o.scopeQuery !== undefined) {
    await box.pressSequentially(`@${o.scopeQuery}`);
    await chat.frame.locator('#mention-list .mention').first().waitFor();
    await box.press('Enter');
    await chat.frame.locator('.scope-chip').first().waitFor();
  }
  await box.pressSequentially(question);
  await box.press('Enter');
  await eventually('the answer to be released', async () => (await chat.frame.locator('.turn').count()) === turns + 1 && (await chat.frame.locator('.turn.done').count()) === turns + 1, 90_000, 250);
  return { chat, turn: chat.frame.locator('.turn').last() };
}

async function citedBlock(profile: Profile, extensionId: string, ref: string) {
  const dir = new DataDir(dataDirOf(profile, extensionId));
  const snapshot = await loadSnapshot(dir, (await readActiveId(dir))!);
  const [docId, blockId] = ref.split('#');
  const doc = snapshot.documents.find((d) => d.doc_id === docId)!;
  return { doc, block: doc.blocks.find((b) => b.block_id === blockId)!, snapshot };
}

/** The saved conversation's last turn's first citation (the view shows the release as it is saved). */
async function lastCitation(profile: Profile, extensionId: string): Promise<string> {
  const root = path.join(dataDirOf(profile, extensionId), 'conversations');
  type Saved = { updated_at: string; turns: Array<{ result: { citations: Array<{ ref: string }> } | null }> };
  let ref = '';
  await eventually('the answer to be saved with its citations', () => {
    const files = fs.readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith('.json') && !f.endsWith('index.json'));
    const saved = files.map((f) => JSON.parse(fs.readFileSync(path.join(root, f), 'utf8')) as Saved).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))[0];
    ref = saved?.turns.at(-1)?.result?.citations[0]?.ref ?? '';
    return ref !== '';
  }, 10_000, 100);
  return ref;
}

function keepShot(journey: Journey, name: string, docName: string | null): void {
  const shot = journey.records.at(-1)?.screenshot;
  if (!shot || !docName || process.env.DOCQA_DOC_IMAGES !== '1') return;
  fs.copyFileSync(shot, path.join(DOC_IMAGES, docName));
  void name;
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string };
const extensionId = `${manifest.publisher}.${manifest.name}`;

for (const size of [
  { width: 1280, height: 800 },
  { width: 1500, height: 950 },
]) {
  const full = size.width === 1280;
  describe(`the first hour at ${size.width} × ${size.height}, VS Code's own chat and side bars as a new install has them`, () => {
    it(full ? 'walkthrough, embeddings turned on, a folder added and built, an answer on screen and clicked, an @-scoped question, a saved note' : 'a folder added and built, an answer and its chip on screen and clicked', { timeout: 10 * 60_000 }, async () => {
      const journey = new Journey(`${new Date().toISOString().replace(/[:.]/g, '-')}-first-hour-${size.width}x${size.height}`);
      const fake = new FakeOpenAIServer({ auto: true, apiKey: KEY });
      let profile: Profile | null = null;
      let server: CodeServer | null = null;
      let browser: Browser | null = null;
      let passed = false;
      try {
        profile = await journey.step('install the packaged extension into a fresh profile (embeddings off, as by default)', async () => {
          await fake.start();
          const p = makeProfile({ ...NEW_INSTALL_SETTINGS, 'docqa.chat.baseUrl': fake.baseURL, 'docqa.chat.model': 'fake-chat', 'docqa.embedding.baseUrl': fake.baseURL, 'docqa.embedding.model': 'fake-embedding', 'docqa.embedding.dimensions': 16 });
          await installExtension(p, packagedVsix());
          return p;
        });
        const workspace = notesWorkspace(profile);
        server = await journey.step('start code-server', () => CodeServer.start(profile!, { disableWorkspaceTrust: true, env: { DOCQA_HOME: path.join(profile!.home, 'docqa') } }));
        const page = await journey.step(`open the workspace at ${size.width} × ${size.height}`, async () => {
          browser = await launchBrowser(path.join(profile!.root, 'browser-home'));
          const p = await openWorkbenchAt(browser, server!.folderUrl(workspace), size);
          journey.usePage(p);
          return p;
        });

        await journey.step('click DocQA in the activity bar: the chat has the side bar, Sources and Snapshots are collapsed, the chat says the next step', async () => {
          await openDocQa(page);
          const chat = await chatWebview(page, '.start');
          await chat.frame.getByText('Add a folder of notes').waitFor();
          for (const name of ['Sources', 'Snapshots']) {
            const header = page.locator('.part.sidebar .pane-header', { hasText: name }).first();
            assert.equal(await header.getAttribute('aria-expanded'), 'false', `${name} starts collapsed`);
          }
          const view = (await chat.host.boundingBox())!;
          assert.ok(view.height > size.height * 0.55, `the chat webview is ${view.height}px high in a ${size.height}px window`);
        });
        keepShot(journey, 'first screen', full ? 'first-screen-light.png' : null);

        if (full) {
          await journey.step('"DocQA: Get Started" opens the walkthrough: the chat model (a local server) is checked off, nothing else yet', async () => {
            await runCommand(page, 'DocQA: Get Started');
            await walkthroughStep(page, 'chatModel').waitFor();
            await waitStepDone(page, 'chatModel');
            for (const id of ['embeddings', 'addFolder', 'build', 'ask']) assert.equal(await stepDone(page, id), false, `${id} is not done yet`);
          });
          keepShot(journey, 'walkthrough', 'walkthrough-light.png');

          await journey.step('set the embedding key while embeddings are off: DocQA asks to turn them on; yes turns them on and checks the step off', async () => {
            await answerCommand(page, 'DocQA: Set Embedding API Key', 'DocQA: Embedding API Key', KEY);
            await clickNotificationButton(page, /the embedding API key is saved, but embeddings are off/, 'Turn On Embeddings');
            await eventually('the embedding provider to be on in the user settings', () => userSettings(profile!)?.['docqa.embedding.provider'] === 'openai-compatible', 15_000, 100);
            await waitStepDone(page, 'embeddings');
          });
        }

        await journey.step('set the chat key (the fake model server asks for one)', async () => {
          await answerCommand(page, 'DocQA: Set Chat API Key', 'DocQA: Chat API Key', KEY);
          await notification(page, 'DocQA: the chat API key is saved.').waitFor();
        });

        await journey.step('add the workspace folder: it is built at once (the egress confirmation first where embeddings are on), without "Rebuild Index"', async () => {
          await clearNotifications(page);
          await runCommand(page, 'DocQA: Add All Workspace Folders');
          await notification(page, /DocQA: added workspace; indexing it now\./).waitFor();
          if (full) {
            const dialog = await modalDialog(page, /DocQA: send \d+ files .* to 127\.0\.0\.1:\d+ to be embedded\?/);
            await dialog.locator('.monaco-button', { hasText: 'Send and Build' }).click();
          }
          await notification(page, /DocQA: the index is ready with 3 documents\./).waitFor({ timeout: 90_000 });
          await statusBarItem(page, /DocQA: (ready|keyword-only)/).waitFor();
          if (full) assert.ok(fake.requests.some((r) => r.path === '/v1/embeddings' && (r.body.input as string[]).length > 1), 'the notes were embedded');
          recordTrials({ area: 'first hour', fault: `a folder added in VS Code at ${size.width} × ${size.height}`, trials: 1, outcome: 'built without Rebuild Index' }, __filename);
        });

        if (full) {
          await journey.step('the walkthrough checks off the folder and the build', async () => {
            await runCommand(page, 'DocQA: Get Started');
            await waitStepDone(page, 'addFolder');
            await waitStepDone(page, 'build');
            assert.equal(await stepDone(page, 'ask'), false);
          });
        }

        await journey.step('the empty chat offers questions drawn from the notes', async () => {
          await openDocQa(page);
          const chat = await chatWebview(page, '.starting-question');
          const questions = await chat.frame.locator('.starting-question').allInnerTexts();
          assert.equal(questions.length, 3);
          assert.ok(questions.some((q) => q.includes('“Cell Biology Notes”')), JSON.stringify(questions));
        });
        keepShot(journey, 'starting questions', full ? 'first-screen-ready-light.png' : null);

        await journey.step('ask: the answer and its first chip are inside the visible chat webview, measured before any scroll; the chip opens the cited lines', async () => {
          const { chat, turn } = await ask(page, 'What are cells?');
          await turn.locator('.chip').first().waitFor();
          const boxes = await answerOnScreen(page, chat, turn);
          console.log(`e2e first hour ${size.width}x${size.height}: chat webview ${JSON.stringify(boxes.view)}, answer ${JSON.stringify(boxes.answer)}, chip ${JSON.stringify(boxes.chip)}`);
          const ref = await lastCitation(profile!, extensionId);
          const { doc, block } = await citedBlock(profile!, extensionId, ref);
          assert.equal(block.location.kind, 'lines');
          const at = block.location as { line_start: number; line_end: number };
          await turn.locator('.chip').first().click();
          await activeTab(page, path.basename(doc.path)).waitFor();
          await selectionStatus(page).filter({ hasText: expectedSelection(fs.readFileSync(doc.path, 'utf8'), at.line_start, at.line_end) }).waitFor({ timeout: 10_000 });
          recordTrials({ area: 'first hour', fault: `answer and chip on screen at ${size.width} × ${size.height} in the default layout`, trials: 1, outcome: 'inside the visible webview, clicked open at the cited lines' }, __filename);
        });

        if (full) {
          await journey.step('the walkthrough checks off the first question', async () => {
            await runCommand(page, 'DocQA: Get Started');
            await waitStepDone(page, 'ask');
          });
          keepShot(journey, 'walkthrough done', null);

          const cell = await (async () => {
            const dir = new DataDir(dataDirOf(profile!, extensionId));
            const snapshot = await loadSnapshot(dir, (await readActiveId(dir))!);
            return snapshot.documents.find((d) => d.title === 'Cell Biology Notes')!;
          })();
          await journey.step('an @-scoped question: every tool call the model saw ran only on that document (the fake server’s request log); steps and ledger say so', async () => {
            await openDocQa(page);
            const mark = fake.requests.length;
            const { turn } = await ask(page, 'What does it say about staining?', { scopeQuery: 'cell' });
            const chats = fake.requests.slice(mark).filter((r) => r.path === '/v1/chat/completions');
            assert.ok(chats.length >= 2, 'the model called a tool, then answered');
            for (const r of chats) {
              const system = String((r.body.messages as Array<{ content: string }>)[0]!.content);
              assert.ok(system.includes(`"question_scope":{"doc_ids":["${cell.doc_id}"]`), 'the prompt names the scope');
            }
            const observations = observationsOf(chats.at(-1)!.body);
            const refs = observations.flatMap((o) => [...(o.payload?.blocks ?? []), ...(o.payload?.hits ?? [])].map((b) => b.ref));
            assert.ok(refs.length > 0 && refs.every((ref) => ref.startsWith(`${cell.doc_id}#`)), `only ${cell.doc_id} was searched: ${refs.join(', ')}`);
            assert.match(await turn.locator('.ledger li').first().innerText(), /^searched only “Cell Biology Notes” \(1 of 3\)$/);
            await turn.locator('details.steps > summary').click();
            assert.match(await turn.locator('.step').first().innerText(), /^Searching “Cell Biology Notes” for /);
            recordTrials({ area: 'first hour', fault: 'an @-scoped question in VS Code whose model sends no doc_ids', trials: refs.length, outcome: 'every returned block is from the scoped document' }, __filename);
          });
          keepShot(journey, 'scoped answer', 'scoped-answer-light.png');

          const notes = path.join(profile.root, 'kept-notes');
          fs.mkdirSync(notes);
          await journey.step('"Save as note" into a folder picked in the dialog: the note opens, and its link opens the cited lines', async () => {
            const chat = await chatWebview(page, '.turn.done');
            const file = await saveAsNote(page, chat.frame.locator('.turn').last(), notes);
            const md = fs.readFileSync(path.join(notes, file), 'utf8');
            const link = /\]\((\.\.\/workspace\/cell-notes\.md)#L(\d+)(?:-L(\d+))?\)/.exec(md);
            assert.ok(link, `the note links the cited lines: ${md}`);
            await activeTab(page, file).waitFor();
            // Ctrl+click on the link in the note's editor, as a person follows a link in Markdown (the
            // preview would follow a link to a .md file inside the preview instead).
            const target = page.locator('.editor-instance .monaco-editor .view-line span', { hasText: 'cell-notes.md#L' }).filter({ visible: true }).first();
            await target.waitFor();
            await eventually('the cited file to open from the note’s link', async () => {
              if (await activeTab(page, 'cell-notes.md').isVisible()) return true;
              await ctrlClick(page, target);
              return activeTab(page, 'cell-notes.md').waitFor({ timeout: 3_000 }).then(() => true, () => false);
            }, 60_000, 500);
            // The cited lines are selected: the cursor on one of them, something selected when they are several.
            const [start, end] = [Number(link[2]), Number(link[3] ?? link[2])];
            await eventually(`lines ${start}-${end} to be selected`, async () => {
              const m = /^Ln (\d+), Col \d+(?: \((\d+) selected\))?/.exec(await selectionStatus(page).innerText().catch(() => ''));
              return Boolean(m && Number(m[1]) >= start && Number(m[1]) <= end + 1 && (end === start || Number(m[2] ?? 0) > 0));
            }, 10_000, 200);
            recordTrials({ area: 'first hour', fault: 'a saved note’s citation link followed in VS Code', trials: 1, outcome: 'the cited file opens at the cited line' }, __filename);
          });

          await journey.step('dark theme: the scoped answer, the first screen and the walkthrough', async () => {
            // As a person switches: Preferences: Color Theme, then the theme's row.
            await useDarkTheme(page);
            await openDocQa(page);
            await chatWebview(page, '.turn.done');
            await page.waitForTimeout(500);
            await page.screenshot({ path: path.join(journey.dir, 'dark-scoped-answer.png') });
            const chat = await chatWebview(page);
            await chat.frame.getByRole('button', { name: 'New chat' }).click();
            await chat.frame.locator('.starting-question').first().waitFor();
            await page.screenshot({ path: path.join(journey.dir, 'dark-first-screen.png') });
            await runCommand(page, 'DocQA: Get Started');
            await walkthroughStep(page, 'ask').waitFor();
            await page.waitForTimeout(500);
            await page.screenshot({ path: path.join(journey.dir, 'dark-walkthrough.png') });
            if (process.env.DOCQA_DOC_IMAGES === '1') {
              for (const [from, to] of [['dark-scoped-answer.png', 'scoped-answer-dark.png'], ['dark-first-screen.png', 'first-screen-ready-dark.png'], ['dark-walkthrough.png', 'walkthrough-dark.png']]) fs.copyFileSync(path.join(journey.dir, from!), path.join(DOC_IMAGES, to!));
            }
          });
        }

        await journey.step('no key is on disk in the profile', async () => {
          for (const f of fs.readdirSync(profile!.root, { recursive: true }).map(String)) {
            const p = path.join(profile!.root, f);
            if (fs.statSync(p).isFile() && fs.statSync(p).size < 50_000_000) assert.ok(!fs.readFileSync(p).includes(KEY), `${f} holds the key`);
          }
        });
        passed = true;
      } finally {
        await endJourney(journey, { browser, server, profile, passed });
        await fake.close();
        console.log(`e2e first hour ${size.width}x${size.height} ${passed ? 'passed' : 'FAILED'}; screenshots in ${journey.dir}`);
      }
    });
  });
}
