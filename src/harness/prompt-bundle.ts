import crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DocQaError } from '../common/errors';
import { readVersioned } from '../common/json-file';

/**
 * Format 2 adds the final-round template (the prompt of the last call when the request budget is spent:
 * no tools, only Finish). Format 3 adds the conversation template (the section that carries a follow-up's
 * earlier questions and answers) and a `{conversation}` line in both templates where it goes.
 * Older bundles (experiments copied before) still load, their hashes unchanged: a format-1 bundle
 * borrows the release baseline's final template of its language, format 1 and 2 borrow its conversation
 * template, the `{conversation}` line is placed before their `<question>` section, and the run's
 * manifest says what was borrowed.
 */
export const PROMPT_BUNDLE_FORMAT_VERSION = 3;
export const PLACEHOLDERS = ['{tools}', '{collection_status}', '{question}', '{history}'] as const;
/** The final round offers no tools: its template has every placeholder but {tools}. */
export const FINAL_PLACEHOLDERS = ['{collection_status}', '{question}', '{history}'] as const;
/** Format 3: where the conversation section goes, on a line of its own in both templates. */
export const CONVERSATION_PLACEHOLDER = '{conversation}';
/** The conversation template's one placeholder: the earlier turns, one per line. */
export const TURNS_PLACEHOLDER = '{turns}';

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
export const BundleFileV2 = z.object({ formatVersion: z.literal(2), ...BundleFields, final_template: FileName });
export const BundleFile = z.object({ formatVersion: z.literal(PROMPT_BUNDLE_FORMAT_VERSION), ...BundleFields, final_template: FileName, conversation_template: FileName });
export type BundleFile = z.infer<typeof BundleFile>;
const AnyBundleFile = z.discriminatedUnion('formatVersion', [BundleFileV1, BundleFileV2, BundleFile]);

/** A template besides the agent's (final round, conversation): the bundle's own, or the baseline's it borrows. */
export interface BundleTemplate {
  text: string;
  /** sha256 of the template bytes. */
  hash: string;
  /** The bundle whose file it is. */
  from: string;
}
export type FinalTemplate = BundleTemplate;

export interface PromptBundle extends Omit<z.infer<typeof BundleFileV1>, 'formatVersion'> {
  formatVersion: 1 | 2 | 3;
  final_template?: string;
  conversation_template?: string;
  /** sha256 over what the model is given (language and template bytes, the final and conversation templates'): the bundle's identity. Id, version and description are for people. */
  hash: string;
  /** The agent template as rendered (an older bundle's with the `{conversation}` line placed). */
  text: string;
  /** null only for a format-1 bundle before the prompt store lends it the baseline's. */
  final: BundleTemplate | null;
  /** null only for a format-1 or -2 bundle before the prompt store lends it the baseline's. */
  conversation: BundleTemplate | null;
}

/** The release-baseline bundles shipped beside the code (read-only at run time). */
export function baselineDir(): string {
  // Bundled: dist/../prompts; from source: src/harness/../../prompts.
  for (const dir of [path.join(__dirname, '..', 'prompts'), path.join(__dirname, '..', '..', 'prompts')]) {
    if (existsSync(path.join(dir, 'baseline-zh', 'bundle.json'))) return dir;
  }
  throw new DocQaError('prompt_bundle_missing', 'the release-baseline prompt bundles were not found next to DocQA');
}

export function bundleHash(language: string, template: Uint8Array, final?: Uint8Array, conversation?: Uint8Array): string {
  const h = crypto.createHash('sha256').update(language).update('\0').update(template);
  // Older bundles hash as they always did (a frozen one stays usable); each added template is part of
  // the identity of the formats that have it.
  if (final) h.update('\0final\0').update(final);
  if (conversation) h.update('\0conversation\0').update(conversation);
  return h.digest('hex');
}

/**
 * An older template has no `{conversation}` line: it is placed on its own line just before the
 * `<question>` section (or, without one, before the line holding `{question}`), where format 3 has it.
 */
export function withConversationSlot(text: string): string {
  if (text.includes(CONVERSATION_PLACEHOLDER)) return text;
  const tag = /^<question>/m.exec(text);
  const at = tag ? tag.index : text.lastIndexOf('\n', text.indexOf('{question}')) + 1;
  return `${text.slice(0, at)}${CONVERSATION_PLACEHOLDER}\n${text.slice(at)}`;
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
  const v3 = meta.formatVersion === 3;
  const raw = await readTemplate(folder, meta.template, meta.id, v3 ? [...PLACEHOLDERS, CONVERSATION_PLACEHOLDER] : PLACEHOLDERS);
  const text = withConversationSlot(raw.toString('utf8'));
  if (meta.formatVersion === 1) return { ...meta, hash: bundleHash(meta.language, raw), text, final: null, conversation: null };
  const finalRaw = await readTemplate(folder, meta.final_template, meta.id, v3 ? [...FINAL_PLACEHOLDERS, CONVERSATION_PLACEHOLDER] : FINAL_PLACEHOLDERS);
  if (finalRaw.toString('utf8').includes('{tools}')) throw new DocQaError('prompt_bundle_invalid', `prompt bundle ${meta.id}: ${meta.final_template} is the final round's prompt and offers no tools: it must not contain {tools}`);
  const final = { text: withConversationSlot(finalRaw.toString('utf8')), hash: sha256(finalRaw), from: meta.id };
  if (meta.formatVersion === 2) return { ...meta, hash: bundleHash(meta.language, raw, finalRaw), text, final, conversation: null };
  const convRaw = await readTemplate(folder, meta.conversation_template, meta.id, [TURNS_PLACEHOLDER]);
  const conversation = { text: convRaw.toString('utf8'), hash: sha256(convRaw), from: meta.id };
  return { ...meta, hash: bundleHash(meta.language, raw, finalRaw, convRaw), text, final, conversation };
}

export interface PromptValues {
  tools: string;
  collection_status: string;
  question: string;
  history: string;
  /** The conversation section, or '' (then its line disappears: the prompt is the one without it). */
  conversation?: string;
}

const SLOTS = /\{(tools|collection_status|question|history)\}|\{conversation\}(\n?)/g;

/** Fills the placeholders; every other brace in the template (JSON examples) is left alone. */
export function renderTemplate(text: string, values: PromptValues): string {
  // One pass, so a value that itself contains "{history}" (a question quoting it) is never re-expanded.
  return text.replace(SLOTS, (_m, key: Exclude<keyof PromptValues, 'conversation'> | undefined, nl: string | undefined) => (key ? values[key] : values.conversation ? `${values.conversation}${nl ?? ''}` : ''));
}

/** The conversation section: the bundle's conversation template with the earlier turns' lines in it. */
export function renderConversation(template: BundleTemplate, lines: readonly string[]): string {
  return template.text.trimEnd().replace(TURNS_PLACEHOLDER, () => lines.join('\n'));
}

/** The agent prompt of a turn. */
export function renderPrompt(bundle: PromptBundle, values: PromptValues): string {
  return renderTemplate(bundle.text, values);
}
