import os from 'node:os';
import path from 'node:path';
import { DataDir } from '../common/data-dir';
import { Redactor } from '../common/redact';
import { type KeyProvider, fixedKeys } from '../app/settings';

// The settings themselves are read through the settings table (src/app/settings-table): one row per
// setting names its variable, type and default.
export { type SettingsPart, settingsFromEnv } from '../app/settings-table/from-env';

/** Only the CLI reads the environment; the core gets plain values. */
export function resolveStore(flag: string | undefined, env: NodeJS.ProcessEnv): DataDir {
  const dir = flag ?? env.DOCQA_HOME ?? path.join(os.homedir(), '.docqa');
  return new DataDir(path.resolve(dir));
}

/** Both API keys from the environment: everything the CLI prints or writes is scrubbed of them. */
export function redactorFromEnv(env: NodeJS.ProcessEnv): Redactor {
  return new Redactor([env.DOCQA_CHAT_API_KEY, env.DOCQA_EMBEDDING_API_KEY]);
}

/** Both keys from the environment, handed to the application layer when a request needs them. */
export function keysFromEnv(env: NodeJS.ProcessEnv): KeyProvider {
  return fixedKeys(env.DOCQA_CHAT_API_KEY || undefined, env.DOCQA_EMBEDDING_API_KEY || undefined);
}
