import fs from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { eventually } from './wait';
import { clearNotifications, clickNotificationButton } from './workbench';

/**
 * "Save as note" under an answer, as a person does it: the button, `folder` typed into code-server's
 * folder dialog, "Save Note Here", then "Open Note" on the notification. The note's file name.
 */
export async function saveAsNote(page: Page, turn: Locator, folder: string): Promise<string> {
  await clearNotifications(page);
  await turn.getByRole('button', { name: 'Save as note' }).click();
  const input = page.locator('.quick-input-widget input');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: '..' }).first().waitFor();
  await eventually('the dialog to hold the folder', async () => {
    if ((await input.inputValue()) !== `${folder}/`) await input.fill(`${folder}/`);
    return (await input.inputValue()) === `${folder}/`;
  }, 15_000, 250);
  // The dialog re-reads the folder it was given; a click while it does is dropped (seen under load: the
  // dialog stayed open with the folder in it). Clicked again until the dialog closes.
  const save = page.locator('.quick-input-widget .monaco-button', { hasText: 'Save Note Here' });
  const dialog = page.locator('.quick-input-widget');
  for (let attempt = 1; ; attempt++) {
    await save.click();
    const closed = await dialog.waitFor({ state: 'hidden', timeout: 5_000 }).then(() => true, () => false);
    if (closed) break;
    if (attempt === 4) throw new Error('the folder dialog stayed open after 4 clicks on "Save Note Here"');
  }
  await clickNotificationButton(page, /DocQA: the note is saved as .+\.md\./, 'Open Note');
  const file = fs.readdirSync(folder).find((f) => f.endsWith('.md'));
  if (!file) throw new Error(`no note in ${folder}`);
  return file;
}
