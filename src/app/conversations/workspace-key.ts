import crypto from 'node:crypto';
import path from 'node:path';
import { UsageError } from '../../common/errors';

/** The key of a window with no folder open: its conversations are kept apart from every workspace's. */
export const NO_FOLDER_KEY = 'no-folder';

const KEY = /^(no-folder|w[0-9a-f]{16})$/;

/**
 * The key under which a workspace's conversations are kept: `w` + 16 hex digits of sha256 over its
 * folders' absolute paths, sorted (so the order VS Code lists them in does not matter, and the CLI's
 * `--workspace DIR` names the same history as a window with that one folder open); no folder is
 * `no-folder`. Paths are compared as given after resolving: no case folding or symlink resolution.
 */
export function workspaceKey(folders: readonly string[]): string {
  if (folders.length === 0) return NO_FOLDER_KEY;
  const sorted = [...new Set(folders.map((f) => path.resolve(f)))].sort();
  return `w${crypto.createHash('sha256').update(sorted.join('\0')).digest('hex').slice(0, 16)}`;
}

/** A key from outside (a host, the webview) names a folder under the data directory: only keys workspaceKey makes are accepted. */
export function checkWorkspaceKey(key: string): string {
  if (!KEY.test(key)) throw new UsageError(`"${key}" is not a workspace key (workspaceKey() makes them: w + 16 hex digits, or no-folder)`);
  return key;
}
