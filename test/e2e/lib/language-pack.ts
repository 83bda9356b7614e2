/**
 * The display-language pack the journey installs (test/e2e/fixtures/zh-cn-display-language), packed
 * into a .vsix with vsce in a temporary folder, nothing written into the repository.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './paths';

const VSCE = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
const FIXTURE = path.join(ROOT, 'test', 'e2e', 'fixtures', 'zh-cn-display-language');

/** Packs the zh-cn display-language pack under `dir` and returns the .vsix path. */
export async function packZhCnLanguagePack(dir: string): Promise<string> {
  const work = path.join(dir, 'zh-cn-display-language');
  fs.cpSync(FIXTURE, work, { recursive: true });
  const out = path.join(dir, 'zh-cn-display-language.vsix');
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [VSCE, 'package', '--no-dependencies', '--out', out], { cwd: work, timeout: 60_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`vsce package of the language pack failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
  return out;
}
