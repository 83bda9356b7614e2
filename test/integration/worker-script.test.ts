import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startWorker } from '../../src/common/worker-script';
import { tempDir } from '../helpers';

describe('workers on a bundle', () => {
  it('start without the host’s Node options: a host run with --import tsx does not load tsx into every worker', async () => {
    // This test process runs under `--import tsx` (npm test): a worker inheriting it loaded tsx's hooks and
    // lexed the 4 MB pdf.js bundle, 1.6–4 s before its first PDF.
    assert.ok(process.execArgv.some((a) => a.includes('tsx')), 'the test host runs with tsx');
    const script = path.join(tempDir(), 'probe-worker.js');
    fs.writeFileSync(script, "const { parentPort } = require('node:worker_threads'); parentPort.postMessage({ execArgv: process.execArgv, tsx: Object.keys(require.cache).some((k) => k.includes('/tsx/')) });\n");
    const worker = startWorker(script);
    const [reply] = (await once(worker, 'message')) as [{ execArgv: string[]; tsx: boolean }];
    await worker.terminate();
    assert.deepEqual(reply, { execArgv: [], tsx: false });
  });
});
