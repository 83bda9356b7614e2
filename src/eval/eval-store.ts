import fs from 'node:fs/promises';
import path from 'node:path';
import type { DataDir } from '../common/data-dir';
import { DocQaError, errorMessage } from '../common/errors';
import { readVersioned, writeVersioned } from '../common/json-file';
import { EVAL_FORMAT_VERSION, EvalRecord } from '../shared/eval-record';

// The record's schema is pure (zod only) so that the evaluation tab's webview checks it too.
export { EVAL_FORMAT_VERSION, EvalRecord } from '../shared/eval-record';

const EVAL_ID = /^e\d{8}T\d{9}Z-[0-9a-f]{6}$/;

export async function saveEval(dir: DataDir, record: EvalRecord): Promise<string> {
  const file = path.join(dir.evalsDir, `${record.eval_id}.json`);
  await fs.mkdir(dir.evalsDir, { recursive: true });
  await writeVersioned(file, record);
  return file;
}

export interface EvalSummary {
  eval_id: string;
  created_at: string;
  goldset: string;
  pass_rate: number;
  runs: number;
}

/** Every saved evaluation, newest first; a file that cannot be read is left out (loadEval reports it). */
export async function listEvals(dir: DataDir): Promise<EvalSummary[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir.evalsDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new DocQaError('store_io', `cannot list ${dir.evalsDir}: ${errorMessage(err)}`);
  }
  const out: EvalSummary[] = [];
  for (const id of names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).filter((n) => EVAL_ID.test(n))) {
    const r = await loadEval(dir, id).catch(() => null);
    if (r) out.push({ eval_id: r.eval_id, created_at: r.created_at, goldset: r.goldset.path, pass_rate: r.summary.pass_rate, runs: r.summary.runs });
  }
  // Evaluation ids start with their UTC creation time.
  return out.sort((a, b) => (a.eval_id < b.eval_id ? 1 : -1));
}

export async function loadEval(dir: DataDir, id: string): Promise<EvalRecord> {
  if (!EVAL_ID.test(id)) throw new DocQaError('invalid_argument', `"${id}" is not an evaluation id (they look like e20261130T113221042Z-3f9a1c)`);
  const record = await readVersioned(path.join(dir.evalsDir, `${id}.json`), EVAL_FORMAT_VERSION, EvalRecord);
  if (!record) throw new DocQaError('eval_not_found', `no evaluation ${id} in ${dir.evalsDir}`);
  return record;
}
