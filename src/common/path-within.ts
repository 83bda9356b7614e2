import path from 'node:path';

/** `p` is `root` or below it (both absolute, resolved the same way). */
export function isWithin(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}
