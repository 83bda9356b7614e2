import crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DocQaError } from '../index/errors';
import { readVersioned } from '../index/json-file';

export const PROMPT_BUNDLE_FORMAT_VERSION = 1;
export const PLACEHOLDERS = ['{tools}', '{collection_status}', '{question}', '{history}'] as const;

export const BundleFile = z.object({
  formatVersion: z.literal(PROMPT_BUNDLE_FORMAT_VERSION),
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  version: z.string(),
  parent: z.string().nullable(),
  language: z.enum(['zh', 'en']),
  template: z.string().regex(/^[^/\\]+$/, 'a file name inside the bundle folder'),
  description: z.string().optional(),
});
export type BundleFile = z.infer<typeof BundleFile>;

export interface PromptBundle extends BundleFile {
  /** sha256 over what the model is given (language and template bytes): the bundle's identity. Id, version and description are for people. */
  hash: string;
  text: string;
}

/** The release-baseline bundles shipped beside the code (read-only at run time). */
export function baselineDir(): string {
  // Bundled: dist/../prompts; from source: src/harness/../../prompts.
  for (const dir of [path.join(__dirname, '..', 'prompts'), path.join(__dirname, '..', '..', 'prompts')]) {
    if (existsSync(path.join(dir, 'baseline-zh', 'bundle.json'))) return dir;
  }
  throw new DocQaError('prompt_bundle_missing', 'the release-baseline prompt bundles were not found next to DocQA');
}

export function bundleHash(language: string, template: Uint8Array): string {
  return crypto.createHash('sha256').update(language).update('\0').update(template).digest('hex');
}

export async function loadBundle(folder: string): Promise<PromptBundle> {
  const meta = await readVersioned(path.join(folder, 'bundle.json'), PROMPT_BUNDLE_FORMAT_VERSION, BundleFile);
  if (!meta) throw new DocQaError('prompt_bundle_missing', `no bundle.json in ${folder}`);
  const raw = await fs.readFile(path.join(folder, meta.template));
  const text = raw.toString('utf8');
  const missing = PLACEHOLDERS.filter((p) => !text.includes(p));
  if (missing.length) throw new DocQaError('prompt_bundle_invalid', `prompt bundle ${meta.id}: template lacks ${missing.join(', ')}`);
  const hash = bundleHash(meta.language, raw);
  return { ...meta, hash, text };
}

export interface PromptValues {
  tools: string;
  collection_status: string;
  question: string;
  history: string;
}

/** Fills the four placeholders; every other brace in the template (JSON examples) is left alone. */
export function renderPrompt(bundle: PromptBundle, values: PromptValues): string {
  // One pass, so a value that itself contains "{history}" (a question quoting it) is never re-expanded.
  return bundle.text.replace(/\{(tools|collection_status|question|history)\}/g, (_m, key: keyof PromptValues) => values[key]);
}
