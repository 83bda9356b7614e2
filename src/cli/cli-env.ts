import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DataDir } from '../index/data-dir';
import { UsageError } from '../index/errors';
import { IngestOptions } from '../index/model';

/** Only the CLI reads the environment; the core gets plain values. */
export function resolveStore(flag: string | undefined, env: NodeJS.ProcessEnv): DataDir {
  const dir = flag ?? env.DOCQA_HOME ?? path.join(os.homedir(), '.docqa');
  return new DataDir(path.resolve(dir));
}

const intVar = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .optional();

const EnvIngest = z.object({
  DOCQA_MAX_FILE_BYTES: intVar('DOCQA_MAX_FILE_BYTES'),
  DOCQA_BLOCK_TARGET_TOKENS: intVar('DOCQA_BLOCK_TARGET_TOKENS'),
  DOCQA_BLOCK_MAX_TOKENS: intVar('DOCQA_BLOCK_MAX_TOKENS'),
  DOCQA_BLOCK_MIN_TOKENS: intVar('DOCQA_BLOCK_MIN_TOKENS'),
});

export function ingestOptionsFromEnv(env: NodeJS.ProcessEnv): IngestOptions {
  const e = EnvIngest.safeParse(env);
  if (!e.success) throw new UsageError(e.error.issues[0]!.message);
  const v = e.data;
  const parsed = IngestOptions.safeParse({
    max_file_bytes: v.DOCQA_MAX_FILE_BYTES,
    chunking: {
      target_tokens: v.DOCQA_BLOCK_TARGET_TOKENS ?? 256,
      max_tokens: v.DOCQA_BLOCK_MAX_TOKENS ?? 512,
      min_tokens: v.DOCQA_BLOCK_MIN_TOKENS ?? 48,
    },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`invalid ingestion settings (${issue.path.join('.') || 'chunking'}): ${issue.message}`);
  }
  return parsed.data;
}
