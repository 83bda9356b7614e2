import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { type RowRun, SEGMENT_FILES, scatterSegmentVectors } from '../../src/index/store/segment-store';

describe('scatterSegmentVectors', () => {
  // 3 dimensions: a few kilobytes, read with blocking calls; 256: megabytes, read asynchronously.
  for (const dims of [3, 256]) it(`puts each run of rows exactly where it belongs, runs adjacent in the file or not, in any order (${dims} dimensions)`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-scatter-'));
    try {
      const rows = 2000;
      const file = Float32Array.from({ length: rows * dims }, (_, i) => i + 0.5);
      fs.writeFileSync(path.join(dir, SEGMENT_FILES.vectors), new Uint8Array(file.buffer));
      // 1,500 runs of 1 row, adjacent in the file and interleaved with gaps in the target (as a segment's
      // live documents are among other segments' ones), then a long run and one placed first.
      const runs: RowRun[] = [];
      for (let r = 0; r < 1500; r++) runs.push([r, 10 + 2 * r, 1]);
      runs.push([1600, 3100, 300]);
      runs.push([1950, 0, 10]);
      const target = new Float32Array(3400 * dims).fill(-1);
      await scatterSegmentVectors(dir, rows, dims, [...runs].reverse(), target);
      for (const [local, to, count] of runs) {
        assert.deepEqual(target.subarray(to * dims, (to + count) * dims), file.subarray(local * dims, (local + count) * dims));
      }
      assert.equal(target[11 * dims], -1, 'gaps between runs untouched');
      await assert.rejects(scatterSegmentVectors(dir, rows + 1, dims, runs, target), /expected/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
