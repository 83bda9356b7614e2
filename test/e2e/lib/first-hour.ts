/**
 * What the first-hour journeys share: a workbench left as a new install has it (VS Code's own chat and
 * secondary side bar untouched), the chat webview and its box on the page, the walkthrough's steps.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { QUIET_SETTINGS, type Profile } from './code-server';
import { ROOT } from './paths';
import { UI_TIMEOUT_MS, eventually } from './wait';

/**
 * QUIET_SETTINGS without what a new install does not have: VS Code's own chat and secondary side bar
 * hidden, and no Welcome page at startup. The Welcome page matters beyond looks: it creates the
 * Getting Started service at startup, and VS Code 1.139 never checks off an `onContext:` step whose key
 * was already true when that service was created (it records the event as seen without progressing the
 * step), so with the page turned off the walkthrough could not check off what DocQA set before it opened.
 */
const NOT_NEW = new Set(['chat.disableAIFeatures', 'workbench.secondarySideBar.defaultVisibility', 'workbench.startupEditor']);
export const NEW_INSTALL_SETTINGS: Record<string, unknown> = Object.fromEntries(Object.entries(QUIET_SETTINGS).filter(([k]) => !NOT_NEW.has(k)));

/** A workspace of the Markdown and text fixtures (three notes, one of them Chinese). */
export function notesWorkspace(profile: Profile): string {
  const dir = path.join(profile.root, 'workspace');
  fs.mkdirSync(dir);
  for (const f of ['cell-notes.md', 'zh-history.md']) fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'markdown', f), path.join(dir, f));
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'text', 'study-plan.txt'), path.join(dir, 'study-plan.txt'));
  return dir;
}

/** The chat webview: its content, and the host iframe whose box is where it is on the page. */
export async function chatWebview(page: Page, selector = '.app'): Promise<{ frame: FrameLocator; host: Locator }> {
  const hosts = page.locator('iframe.webview.ready');
  const deadline = Date.now() + UI_TIMEOUT_MS;
  for (;;) {
    for (let i = 0; i < (await hosts.count()); i++) {
      const host = hosts.nth(i);
      const frame = host.contentFrame().locator('#active-frame').contentFrame();
      if ((await frame.locator('textarea#question').count().catch(() => 0)) > 0 && (await frame.locator(selector).count().catch(() => 0)) > 0 && (await host.isVisible())) return { frame, host };
    }
    if (Date.now() > deadline) throw new Error(`no visible chat webview shows ${selector}`);
    await page.waitForTimeout(200);
  }
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether `inner` lies whole inside `outer` (both in page pixels), and is not empty. */
export function inside(inner: Box | null, outer: Box | null): boolean {
  if (!inner || !outer || inner.width <= 0 || inner.height <= 0) return false;
  return inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5 && inner.y + inner.height <= outer.y + outer.height + 0.5;
}

/**
 * The answer and its first chip as a person sees them: each box inside the chat webview's box and inside
 * the window, measured before anything is scrolled or clicked. Returns the boxes for the report.
 */
export async function answerOnScreen(page: Page, chat: { frame: FrameLocator; host: Locator }, turn: Locator): Promise<{ view: Box; answer: Box; chip: Box }> {
  const viewport = page.viewportSize()!;
  const screen = { x: 0, y: 0, width: viewport.width, height: viewport.height };
  const view = (await chat.host.boundingBox())!;
  const answer = await turn.locator('.answer').boundingBox();
  const chip = await turn.locator('.chip').first().boundingBox();
  const say = JSON.stringify({ screen, view, answer, chip });
  if (!inside(view, screen)) throw new Error(`the chat webview is not inside the window: ${say}`);
  if (!inside(chip, view)) throw new Error(`the first chip is not inside the visible chat webview: ${say}`);
  // The answer's visible part: its top line at least (a long answer may run below, the chip is what matters).
  if (!answer || answer.height <= 0 || answer.y < view.y - 0.5 || answer.y + Math.min(answer.height, 16) > view.y + view.height) throw new Error(`the answer is not inside the visible chat webview: ${say}`);
  // Room to read: the chat is more than its input box (the bug this guards against).
  if (view.height < 300) throw new Error(`the chat webview is only ${view.height}px high: ${say}`);
  return { view, answer: answer!, chip: chip! };
}

/** The walkthrough's step `id` (its button in the Getting Started editor), and whether it is checked off. */
export function walkthroughStep(page: Page, id: string): Locator {
  return page.locator(`.getting-started-step[data-step-id$="${id}"]`).first();
}

/** Checked off: VS Code 1.139 marks the step's button `aria-checked` (and its checkbox `.complete`). */
export async function stepDone(page: Page, id: string): Promise<boolean> {
  return (await walkthroughStep(page, id).getAttribute('aria-checked').catch(() => null)) === 'true';
}

export async function waitStepDone(page: Page, id: string): Promise<void> {
  await eventually(`the walkthrough step ${id} to be checked off`, () => stepDone(page, id), 30_000, 250);
}
