import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * better-sqlite3 has no prebuilt binary that can be fetched offline, so its install script compiles
 * SQLite from source: 136 s of one core, the longest part of every `npm ci` (and of CI), for one bench
 * group. So package.json's `allowScripts` leaves it out, and the `handwritten` group compiles it the
 * first time it opens a SQLite store, as the install script would have: node-gyp, npm's own copy
 * (`npm run` names it in npm_config_node_gyp, and the Node headers in npm_config_nodedir).
 */
export function ensureSqliteBinding(): void {
  const pkg = path.dirname(require.resolve('better-sqlite3/package.json'));
  if (fs.existsSync(path.join(pkg, 'build', 'Release', 'better_sqlite3.node'))) return;
  const gyp = process.env.npm_config_node_gyp;
  if (!gyp) throw new Error('better-sqlite3 is not compiled yet: run this through `npm run bench`, which compiles it once (npm names its node-gyp for it)');
  process.stderr.write('compiling SQLite for better-sqlite3, once (about two minutes of one core)\n');
  // The compiler's warnings are SQLite's and better-sqlite3's, nothing to act on: shown only on failure.
  const r = spawnSync(process.execPath, [gyp, 'rebuild', '--release', '--loglevel=warn'], { cwd: pkg, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`.slice(-8000));
    throw new Error(`compiling better-sqlite3 failed: node-gyp ${r.status === null ? `was stopped by ${r.signal ?? r.error?.message}` : `exited with ${r.status}`} (the end of its output is above)`);
  }
}
