/**
 * The workbench's quick input, driven as a person drives it: the command palette by command title, the
 * input boxes commands open, and the retries a person makes when a late focus change closes either.
 */
import type { Locator, Page } from 'playwright-core';
import { UI_TIMEOUT_MS, eventually } from './wait';

export const quickInput = (page: Page) => page.locator('.quick-input-widget');
/** `value` escaped for a quoted CSS attribute selector. */
export const attr = (value: string) => value.replace(/["\\]/g, '\\$&');

/** A row of the open quick pick whose label is `label` (a command row adds ", <keybinding>" to it). */
function quickPickRow(page: Page, label: string): Locator {
  const rows = '.quick-input-widget .monaco-list-row';
  return page.locator(`${rows}[aria-label="${attr(label)}"], ${rows}[aria-label^="${attr(`${label}, `)}"]`).first();
}

/**
 * Presses `key` (F1) until the quick input shows. Just after a restart the key can be lost: CI failed so
 * once, after the display language switch, with the palette hidden for 30 s after one F1 while the
 * restored chat view was loading its webview. A person presses again, after clicking out of whatever
 * holds the focus; this takes the focus back to the workbench's document and presses again.
 */
export async function openQuickInput(page: Page, key: string): Promise<Locator> {
  const input = quickInput(page).locator('input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press(key);
    const shown = await input.waitFor({ state: 'visible', timeout: 7_500 }).then(() => true, (e: Error) => (attempt === 4 ? Promise.reject(e) : false));
    if (shown) return input;
    // A string: the tests are compiled without the DOM's types, and tsx could add helpers the page lacks.
    await page.evaluate('document.activeElement && document.activeElement.blur()');
  }
}

/** The labels the open quick pick lists (for failure messages). */
export async function quickPickLabels(page: Page): Promise<string[]> {
  return page.locator('.quick-input-widget .monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
}

/** The palette or an input box closed or moved under the test (see runCommand, answerCommand). */
class PaletteClosed extends Error {}

/** Closes the quick input if it is still open, and waits until it is gone. */
export async function closeQuickInput(page: Page): Promise<void> {
  if (await quickInput(page).isVisible()) await page.keyboard.press('Escape');
  await quickInput(page).waitFor({ state: 'hidden' });
}

async function pick(page: Page, input: Locator, query: string, label: string, waitHidden = true): Promise<void> {
  const typed = await input.fill(query, { timeout: 10_000 }).then(() => true, () => false);
  const row = quickPickRow(page, label);
  if (!typed || !(await row.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false))) {
    // Twice on fresh clones' runs, just after the walkthrough opened, the palette was reset under the
    // query (open and unfiltered) or closed: a late focus change. It counts as a closed palette, which
    // runCommand opens again, as a person would.
    const offered = await quickPickLabels(page);
    await closeQuickInput(page);
    throw new PaletteClosed(`the quick pick offers no "${label}" for "${query}"; it lists: ${JSON.stringify(offered)}`);
  }
  try {
    await row.click({ timeout: 10_000 });
  } catch (e) {
    await closeQuickInput(page);
    throw new PaletteClosed(`the quick pick's "${label}" could not be clicked: ${(e as Error).message}`);
  }
  if (waitHidden) await quickInput(page).waitFor({ state: 'hidden' });
}

/**
 * Runs a command from the command palette (F1) by its title as the palette shows it, e.g. "DocQA: Inspect
 * Document Structure". `asks`: the command opens an input box of its own in the same widget, which so
 * never closes in between.
 */
export async function runCommand(page: Page, title: string, o: { asks?: boolean } = {}): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await pick(page, await openQuickInput(page, 'F1'), `>${title}`, title, !o.asks);
      return;
    } catch (e) {
      // A late focus change in the workbench (an editor that finishes opening) closes the palette under
      // the click, as it would under a person's; they open it again, and so does this, twice at most.
      if (!(e instanceof PaletteClosed) || attempt === 3) throw e;
    }
  }
}

/**
 * Whether the command palette offers a command of this title (the palette is closed again). The list is
 * read once it has settled (the same rows for half a second), so a late answer is not taken for "no".
 */
export async function paletteOffers(page: Page, title: string): Promise<boolean> {
  const input = await openQuickInput(page, 'F1');
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .monaco-list-row').first().waitFor({ state: 'visible' });
  let last = JSON.stringify(await quickPickLabels(page));
  for (let stableSince = Date.now(), deadline = Date.now() + 10_000; Date.now() - stableSince < 500; ) {
    if (Date.now() > deadline) throw new Error(`the command palette kept changing for "${title}": ${last}`);
    await new Promise((r) => setTimeout(r, 100));
    const now = JSON.stringify(await quickPickLabels(page));
    if (now !== last) [last, stableSince] = [now, Date.now()];
  }
  const offered = await quickPickRow(page, title).isVisible();
  await closeQuickInput(page);
  return offered;
}

/**
 * Runs a command that asks for a value in an input box (showInputBox, a password box included), types the
 * value once the box shows its `title` — the palette's own input is replaced by it, and text typed before
 * that is lost — and confirms. A late focus change closes the box as it closed the palette (CI failed on
 * it around these boxes, just after the walkthrough opened and after a restart): a box that is gone
 * before it is answered has its command run again, as a person would, three times in all. Once Enter is
 * pressed the command is never run again.
 */
export async function answerCommand(page: Page, command: string, title: string, value: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, command, { asks: true });
    try {
      await typeIntoInputBox(page, title, value);
      break;
    } catch (e) {
      if (!(e instanceof PaletteClosed) || attempt === 3) throw e;
    }
  }
  await quickInput(page).waitFor({ state: 'hidden' });
}

/** Types `value` into the input box titled `title` and presses Enter; PaletteClosed when the box is gone first. */
async function typeIntoInputBox(page: Page, title: string, value: string): Promise<void> {
  const titled = page.locator('.quick-input-widget .quick-input-title', { hasText: title });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  let hiddenSince = Date.now();
  // The box may come late (the command's extension still activating): only a quick input hidden for
  // 10 s on end counts as closed.
  await eventually(`the input box "${title}"`, async () => {
    if (await titled.isVisible()) return true;
    if (await quickInput(page).isVisible()) hiddenSince = Date.now();
    else if (Date.now() - hiddenSince > 10_000) throw new PaletteClosed(`the input box "${title}" did not show, or closed before it was answered`);
    return false;
  }, UI_TIMEOUT_MS, 100);
  const typed = await input.fill(value, { timeout: 10_000 }).then(() => true, () => false);
  const held = typed && (await eventually('the input box to hold what was typed', async () => (await input.inputValue()) === value, 5_000, 100).then(() => true, () => false));
  if (!held || !(await titled.isVisible())) {
    await closeQuickInput(page);
    throw new PaletteClosed(`the input box "${title}" closed before it was answered`);
  }
  await input.press('Enter');
}
