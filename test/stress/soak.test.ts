import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { MEASURE_FLAGS } from './soak-measures';

/**
 * The soak (soak.ts) in a node of its own with the flags its heap measure needs (MEASURE_FLAGS): the test
 * runner hands every file its own flags, so the soak can run beside the crash loops (`npm run
 * test:stress`, two files at a time) instead of after them, without slowing them with its flags. Its
 * measurements come back as this test's diagnostics; its TAP report, whole, when it fails.
 */
it('soak: 300 questions in one process, a note edited and the index rebuilt every 50 (in a node of its own, under the measuring flags)', { timeout: 25 * 60_000 }, async (t) => {
  // Without the runner's NODE_TEST_CONTEXT, the soak reports in TAP to this test, not to the runner.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, [...MEASURE_FLAGS, '--test-reporter=tap', '--import', 'tsx', path.join(__dirname, 'soak.ts')], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const code = await new Promise<number | string>((resolve) => child.on('close', (c, signal) => resolve(c ?? signal ?? 'unknown')));
  assert.equal(code, 0, out);
  assert.match(out, /^# pass 1$/m, out);
  for (const line of out.split('\n')) {
    const measured = /^\s+# ((heap|open fds|traces|snapshots|data directory).*)$/.exec(line);
    if (measured) t.diagnostic(measured[1]!);
  }
});
