import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { DataDir } from '../common/data-dir';
import { DocQaError } from '../common/errors';
import { readVersioned, writeVersioned } from '../common/json-file';
import { RunManifest } from '../trace/trace-model';
import { FAILURE_TYPES } from './eval-checks';

/** `<data>/evals/<eval_id>.json`: one evaluation, its manifest and every run's checks. */
export const EVAL_FORMAT_VERSION = 1;

export const EvalRecord = z.object({
  formatVersion: z.literal(EVAL_FORMAT_VERSION),
  eval_id: z.string(),
  created_at: z.string(),
  goldset: z.object({ path: z.string(), sha256: z.string(), cases: z.number().int() }),
  repeat: z.number().int().positive(),
  manifest: RunManifest.nullable(),
  /** More than one when the configuration changed during the evaluation (a new snapshot, say). */
  config_hashes: z.array(z.string()),
  cases: z.array(
    z.object({
      id: z.string(),
      question: z.string(),
      runs: z.array(
        z.object({
          repeat: z.number().int(),
          run_id: z.string().nullable(),
          status: z.string().nullable(),
          reason: z.string().nullable(),
          pass: z.boolean(),
          failures: z.array(z.object({ type: z.enum(FAILURE_TYPES), detail: z.string() })),
        }),
      ),
      passed: z.number().int(),
      flips: z.boolean(),
    }),
  ),
  summary: z.object({
    runs: z.number().int(),
    passed: z.number().int(),
    pass_rate: z.number(),
    failure_types: z.record(z.string(), z.number()),
    flipping: z.array(z.string()),
  }),
});
export type EvalRecord = z.infer<typeof EvalRecord>;

const EVAL_ID = /^e\d{8}T\d{9}Z-[0-9a-f]{6}$/;

export async function saveEval(dir: DataDir, record: EvalRecord): Promise<string> {
  const file = path.join(dir.evalsDir, `${record.eval_id}.json`);
  await fs.mkdir(dir.evalsDir, { recursive: true });
  await writeVersioned(file, record);
  return file;
}

export async function loadEval(dir: DataDir, id: string): Promise<EvalRecord> {
  if (!EVAL_ID.test(id)) throw new DocQaError('invalid_argument', `"${id}" is not an evaluation id (they look like e20261130T113221042Z-3f9a1c)`);
  const record = await readVersioned(path.join(dir.evalsDir, `${id}.json`), EVAL_FORMAT_VERSION, EvalRecord);
  if (!record) throw new DocQaError('eval_not_found', `no evaluation ${id} in ${dir.evalsDir}`);
  return record;
}
