import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { traceFileParts } from '../../src/vscode/trace-file';

describe('which files the trace viewer opens', () => {
  it('a data directory’s traces/<run id>/trace.json names its data directory and run', () => {
    const dir = new DataDir(path.join(path.sep, 'home', 'u', '.docqa'));
    const runId = 'r20261130T113221042Z-3f9a1c';
    assert.deepEqual(traceFileParts(path.join(dir.traceDir(runId), 'trace.json')), { dataDir: dir.root, runId });
  });

  it('anything else is not a trace: another file, another folder, a folder that is no run id', () => {
    const root = path.join(path.sep, 'w');
    for (const f of [
      path.join(root, 'traces', 'r20261130T113221042Z-3f9a1c', 'records.jsonl'),
      path.join(root, 'logs', 'r20261130T113221042Z-3f9a1c', 'trace.json'),
      path.join(root, 'traces', 'chrome-profile', 'trace.json'),
      path.join(root, 'trace.json'),
    ]) {
      assert.equal(traceFileParts(f), null, f);
    }
  });
});
