import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * What a reliability test tried, for RELIABILITY.md (issue 24 item 9). A test calls `recordTrials`
 * only after its assertions passed, so a row in the report is a fault that was tried and survived;
 * a failing test writes nothing and fails the run instead. Without `DOCQA_RELIABILITY_LOG` (plain
 * `npm test`) nothing is written.
 */
export const TrialRecordSchema = z.object({
  /** Groups the report: 'provider faults', 'crash', 'hostile input', 'egress', 'prompt injection', 'fuzzing', 'soak', 'upgrade'. */
  area: z.string().min(1),
  /** The fault or hostile input, in a few words: "429 without Retry-After, twice (chat)". */
  fault: z.string().min(1),
  /** How many times it was tried (iterations, generated inputs, runs). */
  trials: z.number().int().positive(),
  /** What DocQA did, in a few words: "FAILED MODEL_RATE_LIMITED after 2 requests". */
  outcome: z.string().min(1),
  /** What the user lost: 'none', after the test checked it. */
  data_lost: z.string().min(1),
  /** The test file that tried it, relative to the repository. */
  test: z.string().min(1),
});
export type TrialRecord = z.infer<typeof TrialRecordSchema>;

const ROOT = path.resolve(__dirname, '..', '..');

/** One line per call; appends are small enough to stay whole when test files run in parallel. */
export function recordTrials(record: Omit<TrialRecord, 'test' | 'data_lost'> & { data_lost?: string }, testFile: string): void {
  const log = process.env.DOCQA_RELIABILITY_LOG;
  if (!log) return;
  const line = TrialRecordSchema.parse({ data_lost: 'none', ...record, test: path.relative(ROOT, testFile) });
  fs.mkdirSync(path.dirname(log), { recursive: true });
  fs.appendFileSync(log, `${JSON.stringify(line)}\n`);
}
