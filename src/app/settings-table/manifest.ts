import type { z } from 'zod';
import { DEFAULT_SETTINGS } from '../settings';
import { getAt } from './problems';
import { schemaInfo } from './schema-info';
import { type Setting, type VscodeRow, vscodeRows as rowsOffered } from './setting';
import { SETTINGS } from './table';

/**
 * package.json's settings as the settings table describes them: `contributes.configuration`, the
 * Restricted Mode list, and the nls entries of their descriptions. scripts/gen-manifest.ts writes them
 * into the files; test/unit/settings-manifest.test.ts fails when the files say anything else.
 */

const vscodeRows = (rows: readonly Setting[] = SETTINGS): VscodeRow[] => rowsOffered(rows);

/** `docqa.chat.thinking` → `config.chat.thinking`: the prefix of the setting's nls keys. */
const nlsPrefix = (key: string) => `config.${key.slice('docqa.'.length)}`;
/** `openai-compatible` → `openaiCompatible`: an enum value in an nls key. */
const camel = (value: string) => value.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** What the setting holds when nothing is set: AppSettings' default, else the row's empty value, else the schema's default. */
export function defaultOf(row: Setting): unknown {
  const inSettings = getAt(DEFAULT_SETTINGS, row.path.split('.'));
  if (inSettings !== undefined) return inSettings;
  if ('unset' in row) return row.unset;
  const info = schemaInfo(row.schema);
  if (!info.hasDefault) throw new Error(`setting ${row.vscode?.key ?? row.env ?? row.path} has no default: give its schema one, or the row an unset value`);
  return info.default;
}

function jsonType(schema: z.ZodType): string | string[] {
  const info = schemaInfo(schema);
  const base = info.kind === 'number' ? (info.integer ? 'integer' : 'number') : info.kind === 'enum' ? 'string' : info.kind;
  return info.nullable ? [base, 'null'] : base;
}

/** One entry of `contributes.configuration.properties`, its keys in a fixed order. */
export function vscodeProperty(row: VscodeRow, order: number): Record<string, unknown> {
  const info = schemaInfo(row.schema);
  const prefix = nlsPrefix(row.vscode.key);
  // A setting that may be left empty ('' while unused) carries no constraint VS Code would flag on it.
  const mayBeEmpty = 'unset' in row;
  const p: Record<string, unknown> = { type: jsonType(row.schema) };
  if (info.values) {
    p.enum = [...info.values];
    if (row.values) p.enumDescriptions = info.values.map((v) => `%${prefix}.${camel(v)}%`);
  }
  if (info.kind === 'array') {
    const element = (row.schema as unknown as { _zod: { def: { innerType?: z.ZodType; element?: z.ZodType } } })._zod.def;
    const array = element.element ?? (element.innerType as unknown as { _zod: { def: { element: z.ZodType } } })._zod.def.element;
    p.items = { type: jsonType(array) };
  }
  p.default = defaultOf(row);
  if (info.minimum !== null) p.minimum = info.minimum;
  if (info.minLength !== null && !mayBeEmpty) p.minLength = info.minLength;
  if (info.format === 'url' && !mayBeEmpty) p.format = 'uri';
  p.description = `%${prefix}.description%`;
  if (row.vscode.scope) p.scope = row.vscode.scope;
  p.order = order;
  return p;
}

/** `contributes.configuration`: every VS Code setting of the table, in its order. */
export function configurationContribution(rows: readonly Setting[] = SETTINGS): { title: string; properties: Record<string, Record<string, unknown>> } {
  const properties: Record<string, Record<string, unknown>> = {};
  vscodeRows(rows).forEach((row, i) => (properties[row.vscode.key] = vscodeProperty(row, i + 1)));
  return { title: 'DocQA', properties };
}

/** Whether Restricted Mode ignores a workspace's value: by default, every setting a workspace may set. */
export const isRestricted = (row: VscodeRow) => row.vscode.restricted ?? row.vscode.scope !== 'application';

/** `capabilities.untrustedWorkspaces.restrictedConfigurations`. */
export function restrictedConfigurations(rows: readonly Setting[] = SETTINGS): string[] {
  return vscodeRows(rows)
    .filter(isRestricted)
    .map((r) => r.vscode.key);
}

/** The nls entries of the settings' descriptions (and their enum values' words) in one language, in the table's order. */
export function settingNls(lang: 'en' | 'zh', rows: readonly Setting[] = SETTINGS): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of vscodeRows(rows)) {
    const prefix = nlsPrefix(row.vscode.key);
    out[`${prefix}.description`] = row.description[lang];
    const values = schemaInfo(row.schema).values;
    if (row.values && values) for (const v of values) out[`${prefix}.${camel(v)}`] = row.values[v]![lang];
  }
  return out;
}

/** Is this nls key one the settings table owns (a generated one)? */
export const isSettingNlsKey = (key: string) => key.startsWith('config.');
