import path from 'node:path';
import { isRunId } from '../trace/trace-store';

/**
 * `<data dir>/traces/<run id>/trace.json` → the data directory and the run id; null for any other file
 * (the custom editor's selector is a glob: this is the exact check).
 */
export function traceFileParts(file: string): { dataDir: string; runId: string } | null {
  const folder = path.dirname(file);
  const traces = path.dirname(folder);
  if (path.basename(file) !== 'trace.json' || path.basename(traces) !== 'traces') return null;
  const runId = path.basename(folder);
  return isRunId(runId) ? { dataDir: path.dirname(traces), runId } : null;
}
