import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers';

/**
 * `npm test` starts with test/webview/setup.sh, so that `npm ci && npm test` passes on a fresh Debian
 * machine. Chromium cannot be removed from this shared machine to try it, so each case runs the real
 * script with a PATH of its own: `id` says who runs it, and `apt-get` (the one thing outside the
 * machine) records its arguments and, when asked to install chromium, puts an executable where the
 * script looks (DOCQA_CHROMIUM_BIN).
 */
const SCRIPT = path.join(__dirname, '..', 'webview', 'setup.sh');

function machine(o: { uid: number; apt: boolean; chromium: boolean }) {
  const root = tempDir('docqa-chromium-setup-');
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  const chromium = path.join(root, 'usr-bin-chromium');
  const log = path.join(root, 'apt.log');
  const exe = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  const chromiumBody = `#!/bin/bash\necho "Chromium 156.0.0.0 built on Debian"\n`;
  if (o.chromium) fs.writeFileSync(chromium, chromiumBody, { mode: 0o755 });
  for (const tool of ['head', 'chmod']) fs.symlinkSync(`/usr/bin/${tool}`, path.join(bin, tool));
  exe('id', `[ "$1" = -u ] && echo ${o.uid}`);
  if (o.apt) exe('apt-get', `echo "$*" >> ${JSON.stringify(log)}\ncase " $* " in *" install "*chromium*) printf '#!/bin/bash\\necho "Chromium 156.0.0.0 built on Debian"\\n' > ${JSON.stringify(chromium)}; chmod +x ${JSON.stringify(chromium)};; esac`);
  const r = spawnSync('/bin/bash', [SCRIPT], { env: { PATH: bin, DOCQA_CHROMIUM_BIN: chromium }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, apt: fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [], installed: fs.existsSync(chromium) };
}

describe('npm test on a fresh machine: Chromium for the webview tests', () => {
  it('with Chromium there, prints its version and installs nothing', () => {
    const r = machine({ uid: 0, apt: true, chromium: true });
    assert.deepEqual([r.code, r.stdout.trim(), r.apt], [0, 'Chromium 156.0.0.0 built on Debian', []]);
  });

  it('as root without Chromium, installs Debian’s chromium with apt-get, then goes on', () => {
    const r = machine({ uid: 0, apt: true, chromium: false });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.apt.length, 2);
    assert.match(r.apt[0]!, /(^| )update( |$)/);
    assert.match(r.apt[1]!, /(^| )install .*-y .*--no-install-recommends chromium$/);
    assert.ok(r.installed);
    assert.match(r.stdout, /Chromium 156/);
  });

  it('as another user without Chromium, stops and says exactly what to run', () => {
    const r = machine({ uid: 1000, apt: true, chromium: false });
    assert.equal(r.code, 1);
    assert.deepEqual(r.apt, [], 'apt-get is not tried without root');
    assert.match(r.stderr, /installing it needs root\. Run:\n {2}sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium\nthen npm test again\./);
  });

  it('without apt-get, says what is missing and where it is looked for', () => {
    const r = machine({ uid: 0, apt: false, chromium: false });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is missing and this machine has no apt-get: install Chromium so that \S+usr-bin-chromium runs it/);
  });
});
