/**
 * Driving the VS Code workbench in Debian's Chromium through Playwright, by what a user sees: the command
 * palette by command title, Quick Open by file name, the status bar, a webview's content.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type FrameLocator, type Locator, type Page, chromium } from 'playwright-core';
import { CHROMIUM } from './paths';
import { attr, closeQuickInput, openQuickInput, quickInput, quickPickLabels, runCommand } from './quick-input';
import { UI_TIMEOUT_MS, eventually } from './wait';

/** The recipe's flags: no sandbox (root in a container), no GPU, nothing that reaches the network on its own. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches Chromium with `home` as its HOME and XDG folders (its crash reporter writes there, not into the real HOME). */
export function launchBrowser(home: string): Promise<Browser> {
  fs.mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache'), LANG: 'C.UTF-8' };
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, env });
}

/** Opens the workbench at `url` (a code-server `?folder=` URL) and waits until it is laid out. */
export async function openWorkbench(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor();
  await page.locator('.part.statusbar').waitFor();
  return page;
}

/**
 * Opens a workspace file by name through Quick Open and waits for its editor tab: the palette without its
 * `>` is Quick Open (F1 is used rather than Ctrl+P, which a focused editor such as Workspace Trust can swallow).
 */
export async function openFile(page: Page, fileName: string): Promise<void> {
  const input = await openQuickInput(page, 'F1');
  await input.fill(fileName);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: fileName }).first();
  await row.waitFor({ state: 'visible' });
  await row.click();
  await quickInput(page).waitFor({ state: 'hidden' });
  await activeTab(page, fileName).waitFor();
}

/** The active editor tab with this title (its label may add ", preview" and the like). */
export function activeTab(page: Page, title: string): Locator {
  const tab = '.tabs-container .tab.active';
  return page.locator(`${tab}[aria-label="${attr(title)}"], ${tab}[aria-label^="${attr(`${title}, `)}"]`).first();
}

/** The content of the webview that is ready and visible (VS Code nests it: the host iframe, then `#active-frame`). */
export async function webviewFrame(page: Page): Promise<FrameLocator> {
  const hosts = page.locator('iframe.webview.ready');
  await hosts.first().waitFor();
  const visible = await hosts.evaluateAll((els) => els.filter((e) => e.getClientRects().length > 0).length);
  if (visible !== 1) throw new Error(`expected one visible webview, found ${visible}`);
  return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/** The visible webview whose page has `selector` (several webviews may be open: the chat, an editor panel). */
export async function webviewWith(page: Page, selector: string, timeoutMs = UI_TIMEOUT_MS): Promise<FrameLocator> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [first] = await webviewsWith(page, selector);
    if (first) return first;
    if (Date.now() > deadline) throw new Error(`no webview shows ${selector}`);
    await page.waitForTimeout(200);
  }
}

/** Every webview that shows `selector` now: panels of one kind can be open side by side (one per document). */
export async function webviewsWith(page: Page, selector: string): Promise<FrameLocator[]> {
  const hosts = page.locator('iframe.webview.ready');
  const out: FrameLocator[] = [];
  for (let i = 0; i < (await hosts.count()); i++) {
    const frame = hosts.nth(i).contentFrame().locator('#active-frame').contentFrame();
    if ((await frame.locator(selector).count().catch(() => 0)) > 0) out.push(frame);
  }
  return out;
}

/**
 * The row labelled `label` of a workbench list (`list` holds its `.monaco-list-row`s). Lists render only
 * the rows in view, so this pages down through the list until the row is rendered.
 */
export async function listRow(page: Page, list: Locator, label: string): Promise<Locator> {
  const rows = list.locator('.monaco-list-row');
  const row = list.locator(`.monaco-list-row[aria-label="${attr(label)}"]`);
  await rows.first().waitFor();
  for (let i = 0; i < 30; i++) {
    try {
      await row.waitFor({ state: 'visible', timeout: 500 });
      return row;
    } catch {
      if (i === 0) await rows.first().click();
      await page.keyboard.press('PageDown');
    }
  }
  throw new Error(`the list has no row "${label}"; rendered: ${JSON.stringify(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))))}`);
}

/** The status bar's editor position and selection, e.g. "Ln 7, Col 43 (212 selected)". */
export function selectionStatus(page: Page): Locator {
  return page.locator('[id="status.editor.selection"]');
}

/** The status bar item shown while the folder is in Restricted Mode. */
export function restrictedModeIndicator(page: Page): Locator {
  return page.locator('.statusbar-item', { hasText: 'Restricted Mode' });
}

/** Trusts the opened folder as a user does: "Workspaces: Manage Workspace Trust", then Trust. */
export async function trustWorkspace(page: Page): Promise<void> {
  // The command is only offered once the workbench knows the folder is untrusted.
  await restrictedModeIndicator(page).waitFor();
  await runCommand(page, 'Workspaces: Manage Workspace Trust');
  const editor = page.locator('.workspace-trust-editor');
  await editor.locator('.monaco-button', { hasText: /^Trust$/ }).click();
  await restrictedModeIndicator(page).waitFor({ state: 'hidden' });
  await editor.locator('.workspace-trust-header', { hasText: 'You trust this folder' }).waitFor();
  await closeModalEditor(page);
}

/**
 * Closes the modal editor VS Code 1.139 opens some editors in (Workspace Trust is one): while it is up,
 * F1 does not reach the command palette. Its own close button, since Escape only works with focus in it.
 */
export async function closeModalEditor(page: Page): Promise<void> {
  const modal = page.locator('.monaco-modal-editor-block');
  await modal.locator('.action-label[aria-label^="Close Modal Editor"]').click();
  await modal.waitFor({ state: 'detached' });
}

/** The Settings editor (VS Code 1.139 opens it as a modal editor). */
export function settingsEditor(page: Page): Locator {
  return page.locator('.settings-editor');
}

/**
 * Types `value` into a string setting of the open Settings editor, as a person does: the setting's id
 * into the editor's search box, then the value into that setting's text box (the User tab, where it
 * opens). The editor writes it to the user settings a moment later (see `waitForUserSetting`).
 */
export async function typeSetting(page: Page, key: string, value: string): Promise<void> {
  const editor = settingsEditor(page);
  await editor.waitFor();
  // The search box is a small code editor: select what it holds and type over it.
  await editor.locator('.settings-header .monaco-editor').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(key);
  const input = editor.locator(`[data-key="${attr(key)}"] input`);
  await input.waitFor();
  await input.fill(value);
  await eventually(`the ${key} box to hold what was typed`, async () => (await input.inputValue()) === value, 5_000, 100);
}

/**
 * "Extensions: Install from VSIX...", as a person does it in code-server: its file dialog is a quick
 * input holding a path, typed over with the .vsix's. The install goes on after the dialog closes (a
 * language pack's without a notification): wait for what it adds.
 */
export async function installFromVsix(page: Page, vsix: string): Promise<void> {
  await runCommand(page, 'Extensions: Install from VSIX...', { asks: true });
  const input = quickInput(page).locator('input');
  // The dialog fills in its start folder and lists it; typed before that, the path is overwritten.
  await quickInput(page).locator('.monaco-list-row', { hasText: '..' }).first().waitFor();
  // Its folder typed, then the file clicked in the listing (a whole path typed races the dialog's own
  // completion of it, and Enter then lands on a folder).
  const folder = `${path.dirname(vsix)}/`;
  const file = quickInput(page).locator('.monaco-list-row', { hasText: path.basename(vsix) }).first();
  await eventually(`the file dialog to list ${folder}`, async () => {
    if (await file.isVisible()) return true;
    if ((await input.inputValue()) !== folder) await input.fill(folder);
    return false;
  }, 15_000, 250);
  await file.click();
  await quickInput(page).waitFor({ state: 'hidden' });
}

/**
 * "Configure Display Language", then the language labelled `label` (e.g. "中文(简体)"), then Restart in
 * the dialog that asks: the window loads again in that language. Resolves once the workbench is back.
 */
export async function switchDisplayLanguage(page: Page, label: string): Promise<void> {
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  let offered: string[] = [];
  // The list is read when it opens: a pack still being installed shows up on a later try.
  await eventually(`Configure Display Language to offer "${label}" (it lists ${JSON.stringify(offered)})`, async () => {
    await runCommand(page, 'Configure Display Language', { asks: true });
    // English is always listed: the palette's own row is gone and the languages are there.
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'English' }).first().waitFor();
    if (await row.isVisible()) return true;
    offered = await quickPickLabels(page);
    await closeQuickInput(page);
    return false;
  }, 60_000, 1_000);
  await row.click();
  const dialog = await modalDialog(page, /restart/i);
  const reloaded = page.waitForEvent('load', { timeout: 60_000 });
  await dialog.locator('.monaco-button', { hasText: 'Restart' }).click();
  await reloaded;
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.part.statusbar').waitFor();
}

/** A modal dialog (showWarningMessage with `modal: true`) whose message matches, once it shows. */
export async function modalDialog(page: Page, message: string | RegExp): Promise<Locator> {
  const dialog = page.locator('.monaco-dialog-box', { hasText: message });
  await dialog.waitFor({ timeout: UI_TIMEOUT_MS });
  return dialog;
}

/** A notification toast whose message matches. */
export function notification(page: Page, message: string | RegExp): Locator {
  return page.locator('.notifications-toasts .notification-toast', { hasText: message });
}

/** Clicks a button of the notification whose message matches. */
export async function clickNotificationButton(page: Page, message: string | RegExp, button: string): Promise<void> {
  const toast = notification(page, message).first();
  await toast.waitFor({ timeout: UI_TIMEOUT_MS });
  await toast.locator('.monaco-button', { hasText: button }).click();
}

/** A status bar item whose text matches. */
export function statusBarItem(page: Page, text: string | RegExp): Locator {
  return page.locator('.statusbar-item', { hasText: text });
}

/** Clears every notification: VS Code shows only a few toasts at once, and a new one waits behind them. */
export async function clearNotifications(page: Page): Promise<void> {
  await runCommand(page, 'Notifications: Clear All Notifications');
  await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
}

/** The selection the status bar shows once lines start..end of `text` are selected whole. */
export function expectedSelection(text: string, start: number, end: number): string {
  const lines = text.split('\n');
  return `Ln ${end}, Col ${lines[end - 1]!.length + 1} (${lines.slice(start - 1, end).join('\n').length} selected)`;
}

/** Switches to the Dark Modern theme as a person does (Preferences: Color Theme, then its row) and waits for it. */
export async function useDarkTheme(page: Page): Promise<void> {
  await runCommand(page, 'Preferences: Color Theme', { asks: true });
  await page.locator('.quick-input-widget input').fill('Dark Modern');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Dark Modern' }).first().click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  const deadline = Date.now() + 15_000;
  while (!/\bvs-dark\b/.test((await page.locator('.monaco-workbench').getAttribute('class')) ?? '')) {
    if (Date.now() > deadline) throw new Error('the dark theme did not apply within 15 s');
    await page.waitForTimeout(200);
  }
}

/**
 * Ctrl+click at the middle of `target`, as a person follows a link in an editor. Not Playwright's
 * click: with Ctrl held over a link the editor draws the link's spans again (its underline), so a
 * click that waits for its span to hold still can wait for ever; the link stays where it was drawn.
 */
export async function ctrlClick(page: Page, target: Locator): Promise<void> {
  // The editor draws a line's spans again (the link's decoration, a wrap): between two drawings the
  // span has no box for a moment, so it is looked for again before giving up.
  let box: Awaited<ReturnType<Locator['boundingBox']>> = null;
  await eventually('the link to Ctrl+click to be on screen', async () => (box = await target.boundingBox()) !== null, 10_000, 250);
  const { x, y, width, height } = box!;
  await page.keyboard.down('Control');
  try {
    await page.mouse.click(x + width / 2, y + height / 2);
  } finally {
    await page.keyboard.up('Control');
  }
}
