import { SETTINGS } from './table';

/** A path of AppSettings that the settings table has a row for. */
export type SettingPath = (typeof SETTINGS)[number]['path'];

function rowAt(path: SettingPath) {
  const row = SETTINGS.find((r) => r.path === path);
  if (!row) throw new Error(`no setting at ${path}`);
  return row;
}

/** The CLI's variable for a setting (`DOCQA_MAX_QUESTION_CHARS`), for words that name it. */
export function envNameOf(path: SettingPath): string {
  const row = rowAt(path);
  if (!('env' in row) || !row.env) throw new Error(`the setting at ${path} has no environment variable`);
  return row.env;
}

/** The extension's key for a setting (`docqa.question.maxChars`), for words that name it. */
export function vscodeKeyOf(path: SettingPath): string {
  const row = rowAt(path);
  if (!('vscode' in row) || !row.vscode) throw new Error(`the setting at ${path} has no VS Code key`);
  return row.vscode.key;
}
