import { z } from 'zod';
import { RunManifest } from './trace-model';

/** How a run can fail its case (eval-checks.ts decides). */
export const FAILURE_TYPES = ['wrong_status', 'missing_citation', 'missing_text', 'forbidden_text', 'missing_tool_call', 'run_error'] as const;

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
