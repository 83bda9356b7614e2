import crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DocQaError } from '../common/errors';
import { readVersioned } from '../common/json-file';

/**
 * Format 2 adds the final-round template (the prompt of the last call when the request budget is spent:
 * no tools, only Finish). A format-1 bundle (an experiment copied before) still loads; its final round
 * borrows the release baseline's final template of its language, and the run's manifest says so.
 */
export const PROMPT_BUNDLE_FORMAT_VERSION = 2;
export const PLACEHOLDERS = ['{tools}', '{collection_status}', '{question}', '{history}'] as const;
/** The final round offers no tools: its template has every placeholder but {tools}. */
export const FINAL_PLACEHOLDERS = ['{collection_status}', '{question}', '{history}'] as const;

const FileName = z.string().regex(/^[^/\\]+$/, 'a file name inside the bundle folder');
const BundleFields = {
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  version: z.string(),
  parent: z.string().nullable(),
  language: z.enum(['zh', 'en']),
  template: FileName,
  description: z.string().optional(),
};
export const BundleFileV1 = z.object({ formatVersion: z.literal(1), ...BundleFields });
export const BundleFile = z.object({ formatVersion: z.literal(PROMPT_BUNDLE_FORMAT_VERSION), ...BundleFields, final_template: FileName });
export type BundleFile = z.infer<typeof BundleFile>;
const AnyBundleFile = z.discriminatedUnion('formatVersion', [BundleFileV1, BundleFile]);

/** The final-round template: the bundle's own, or (format 1) the baseline's it borrows. */
export interface FinalTemplate {
  text: string;
  /** sha256 of the template bytes. */
  hash: string;
  /** The bundle whose file it is. */
  from: string;
}

export interface PromptBundle extends Omit<z.infer<typeof BundleFileV1>, 'formatVersion'> {
  formatVersion: 1 | 2;
  final_template?: string;
  /** sha256 over what the model is given (language and template bytes, and the final template's): the bundle's identity. Id, version and description are for people. */
  hash: string;
  text: string;
  /** null only for a format-1 bundle before the prompt store lends it the baseline's. */
  final: FinalTemplate | null;
}

/** The release-baseline bundles shipped beside the code (read-only at run time). */
export function baselineDir(): string {
  // Bundled: dist/../prompts; from source: src/harness/../../prompts.
  for (const dir of [path.join(__dirname, '..', 'prompts'), path.join(__dirname, '..', '..', 'prompts')]) {
    if (existsSync(path.join(dir, 'baseline-zh', 'bundle.json'))) return dir;
  }
  throw new DocQaError('prompt_bundle_missing', 'the release-baseline prompt bundles were not found next to DocQA');
}

export function bundleHash(language: string, template: Uint8Array, final?: Uint8Array): string {
  const h = crypto.createHash('sha256').update(language).update('\0').update(template);
  // Format-1 bundles hash as they always did; a final template is part of a format-2 bundle's identity.
  if (final) h.update('\0final\0').update(final);
  return h.digest('hex');
}

const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

async function readTemplate(folder: string, file: string, id: string, needed: readonly string[]): Promise<Buffer> {
  let raw: Buffer;
  try {
    raw = await fs.readFile(path.join(folder, file));
  } catch (err) {
    throw new DocQaError('prompt_bundle_invalid', `prompt bundle ${id}: cannot read ${file}: ${(err as Error).message}`);
  }
  const text = raw.toString('utf8');
  const missing = needed.filter((p) => !text.includes(p));
  if (missing.length) throw new DocQaError('prompt_bundle_invalid', `prompt bundle ${id}: ${file} lacks ${missing.join(', ')}`);
  return raw;
}

export async function loadBundle(folder: string): Promise<PromptBundle> {
  const meta = await readVersioned(path.join(folder, 'bundle.json'), PROMPT_BUNDLE_FORMAT_VERSION, AnyBundleFile);
  if (!meta) throw new DocQaError('prompt_bundle_missing', `no bundle.json in ${folder}`);
  const raw = await readTemplate(folder, meta.template, meta.id, PLACEHOLDERS);
  if (meta.formatVersion === 1) return { ...meta, hash: bundleHash(meta.language, raw), text: raw.toString('utf8'), final: null };
  const finalRaw = await readTemplate(folder, meta.final_template, meta.id, FINAL_PLACEHOLDERS);
  if (finalRaw.toString('utf8').includes('{tools}')) throw new DocQaError('prompt_bundle_invalid', `prompt bundle ${meta.id}: ${meta.final_template} is the final round's prompt and offers no tools: it must not contain {tools}`);
  return { ...meta, hash: bundleHash(meta.language, raw, finalRaw), text: raw.toString('utf8'), final: { text: finalRaw.toString('utf8'), hash: sha256(finalRaw), from: meta.id } };
}

export interface PromptValues {
  tools: string;
  collection_status: string;
  question: string;
  history: string;
}

/** Fills the placeholders; every other brace in the template (JSON examples) is left alone. */
export function renderTemplate(text: string, values: PromptValues): string {
  // One pass, so a value that itself contains "{history}" (a question quoting it) is never re-expanded.
  return text.replace(/\{(tools|collection_status|question|history)\}/g, (_m, key: keyof PromptValues) => values[key]);
}

/** The agent prompt of a turn. */
export function renderPrompt(bundle: PromptBundle, values: PromptValues): string {
  return renderTemplate(bundle.text, values);
}
