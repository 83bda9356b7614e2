import assert from 'node:assert/strict';
import net from 'node:net';
import type { Page } from 'playwright-core';
import type { FakeOpenAIServer } from '../../fakes/openai-server';
import { type Profile, userSettings } from './code-server';
import type { Journey } from './steps';
import { eventually } from './wait';
import { answerCommand, runCommand } from './quick-input';
import { clearNotifications, clickNotificationButton, closeModalEditor, notification, settingsEditor, typeSetting } from './workbench';

/**
 * A port on 127.0.0.1 where nothing listens (one the system just handed out and took back), so a
 * connection is refused. Not a fixed one such as 9: fetch refuses the ports browsers block ("bad port")
 * before it connects.
 */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The journey's connection steps, as a person takes them: both keys set through their password boxes,
 * Test Connection OK, then a wrong chat base URL typed in the Settings editor (the error names the host,
 * the port and the setting) and put right from the error's "Open Settings". Both keys are `key`.
 */
export async function connectionSteps(journey: Journey, page: Page, fake: FakeOpenAIServer, profile: Profile, key: string): Promise<void> {
  await journey.step('set both keys with "DocQA: Set Chat API Key" and "DocQA: Set Embedding API Key" (password boxes)', async () => {
    for (const which of ['Chat', 'Embedding']) {
      await answerCommand(page, `DocQA: Set ${which} API Key`, `DocQA: ${which} API Key`, key);
      await notification(page, `DocQA: the ${which.toLowerCase()} API key is saved.`).waitFor();
    }
  });

  await journey.step('"DocQA: Test Connection" reports both endpoints OK, with the model and the latency', async () => {
    await clearNotifications(page);
    await runCommand(page, 'DocQA: Test Connection');
    await notification(page, /DocQA: The chat model \S+ at 127\.0\.0\.1:\d+ answered in \d+ ms\./).waitFor();
    await notification(page, /DocQA: The embedding model fake-embedding at 127\.0\.0\.1:\d+ answered in \d+ ms \(16 dimensions\)\./).waitFor();
    assert.ok(fake.requests.every((r) => r.authorized), 'the key from SecretStorage was sent');
  });

  // A wrong endpoint, typed where a person types it: the Settings editor, never the file on disk.
  const chatBaseUrl = async (value: string) => {
    await typeSetting(page, 'docqa.chat.baseUrl', value);
    await eventually(`the Settings editor to save docqa.chat.baseUrl = ${value}`, () => userSettings(profile)?.['docqa.chat.baseUrl'] === value, 30_000, 100);
    await closeModalEditor(page);
  };
  await journey.step('type a wrong chat base URL in the Settings editor: "DocQA: Test Connection" says which host and port could not be reached and which setting to check', async () => {
    await clearNotifications(page);
    const port = await closedPort();
    await runCommand(page, 'Preferences: Open User Settings');
    await chatBaseUrl(`http://127.0.0.1:${port}/v1`);
    const mark = fake.requests.length;
    await runCommand(page, 'DocQA: Test Connection');
    // Test Connection makes one attempt (a question retries once).
    const error = notification(page, `DocQA: The chat model fake-chat at 127.0.0.1:${port} could not be reached (ECONNREFUSED), after 1 attempt. Check the chat base URL (docqa.chat.baseUrl) and the network.`);
    await error.waitFor();
    assert.equal(await error.locator('.monaco-button', { hasText: 'Open Settings' }).count(), 1, 'the error offers to open the settings');
    // Only the chat endpoint changed: the embedding endpoint still answers.
    await notification(page, /DocQA: The embedding model fake-embedding at 127\.0\.0\.1:\d+ answered in \d+ ms/).waitFor();
    assert.deepEqual(fake.requests.slice(mark).map((r) => r.path), ['/v1/embeddings'], 'no chat request reached the fake server');
    await notification(page, 'DocQA: testing the connections…').waitFor({ state: 'hidden' }); // the screenshot shows the outcome alone
  });

  await journey.step('"Open Settings" on the error opens the chat settings; setting the base URL back there makes Test Connection OK again', async () => {
    await clickNotificationButton(page, /DocQA: The chat model fake-chat at 127\.0\.0\.1:\d+ could not be reached/, 'Open Settings');
    await settingsEditor(page).locator('[data-key="docqa.chat.baseUrl"] input').waitFor();
    await chatBaseUrl(fake.baseURL);
    await clearNotifications(page);
    await runCommand(page, 'DocQA: Test Connection');
    await notification(page, /DocQA: The chat model \S+ at 127\.0\.0\.1:\d+ answered in \d+ ms\./).waitFor();
    await notification(page, /DocQA: The embedding model fake-embedding at 127\.0\.0\.1:\d+ answered in \d+ ms/).waitFor();
    await notification(page, 'DocQA: testing the connections…').waitFor({ state: 'hidden' });
  });
}
