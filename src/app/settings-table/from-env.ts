import { UsageError } from '../../common/errors';
import { EmbeddingConfig } from '../../index/embed/embedding-client';
import { AppSettings, DEFAULT_SETTINGS } from '../settings';
import { type Tree, describeIssue, getAt, samePath, setAt } from './problems';
import { schemaInfo } from './schema-info';
import type { Setting } from './setting';
import { SETTINGS } from './table';

/** The environment as the CLI hands it over: names to values (unset or empty: not set). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The parts of the settings a command reads from the environment (the rest keep their defaults). */
export type SettingsPart = 'ingest' | 'chat' | 'run' | 'embedding' | 'embedding-if-set' | 'retention';

/** The AppSettings groups each part reads: a run writes its trace, so `run` reads both. */
const GROUPS: Record<Exclude<SettingsPart, 'embedding' | 'embedding-if-set'>, ReadonlyArray<'chat' | 'ingest' | 'run' | 'trace' | 'retention'>> = {
  chat: ['chat'],
  ingest: ['ingest'],
  run: ['run', 'trace'],
  retention: ['retention'],
};

type EnvRow = Setting & { env: string };
const ROWS: readonly Setting[] = SETTINGS;
const envRows = (group: string): EnvRow[] => ROWS.filter((r): r is EnvRow => r.env !== undefined && r.path.startsWith(`${group}.`));
const envName = (path: string) => ROWS.find((r) => r.path === path)?.env ?? path;

/** A variable's text as its setting's type; a whole number must look like one. */
function fromText(row: EnvRow, text: string): unknown {
  const info = schemaInfo(row.schema);
  if (info.kind === 'number') {
    if (info.integer ? !/^-?\d+$/.test(text) : !/^-?\d+(\.\d+)?$/.test(text)) throw new UsageError(`${row.env} must be ${info.integer ? 'a whole number' : 'a number'}, not ${JSON.stringify(text)}`);
    return Number(text);
  }
  if (info.kind === 'boolean') {
    // 1 and 0 as well: how switches are usually set in a shell (DOCQA_INGEST_OCR=1).
    if (!['true', 'false', '1', '0'].includes(text)) throw new UsageError(`${row.env} must be true or false (or 1 or 0), not ${JSON.stringify(text)}`);
    return text === 'true' || text === '1';
  }
  return text;
}

/** The set variables of these rows, as a raw settings tree (unset and empty variables are left out). */
function rawFrom(env: Environment, rows: readonly EnvRow[]): Tree {
  const raw: Tree = {};
  for (const row of rows) {
    const text = env[row.env]?.trim();
    if (text) setAt(raw, row.path.split('.'), fromText(row, text));
  }
  return raw;
}

/** The first problem of a parse, named by its variable; a rule between variables names them all. */
function problem(issues: readonly import('zod').z.core.$ZodIssue[], prefix: readonly string[], raw: unknown, rows: readonly EnvRow[]): UsageError {
  const issue = issues[0]!;
  const path = [...prefix, ...issue.path.map(String)];
  const row = rows.find((r) => samePath(r.path.split('.'), path));
  if (row) return new UsageError(`${row.env} ${describeIssue(issue, getAt(raw, issue.path.map(String)))}`);
  // A rule over a group (block target ≤ block max): the rule's words, and which variables set the group.
  const group = rows.filter((r) => r.path.startsWith(`${path.join('.')}.`)).map((r) => r.env);
  return new UsageError(`${issue.message}${group.length ? ` (${group.join(', ')})` : ''}`);
}

function groupFromEnv<G extends 'chat' | 'ingest' | 'run' | 'trace' | 'retention'>(env: Environment, group: G): AppSettings[G] {
  const rows = envRows(group);
  const raw = rawFrom(env, rows)[group] ?? {};
  const parsed = AppSettings.shape[group].safeParse(raw);
  if (!parsed.success) throw problem(parsed.error.issues, [group], raw, rows);
  return parsed.data as AppSettings[G];
}

/**
 * The embedding endpoint from the environment. Unlike the extension (keyword-only until an endpoint is
 * set), the CLI has no default: a build names its OpenAI-compatible endpoint, or says
 * DOCQA_EMBEDDING_PROVIDER=none for keyword-only search. Its key is the key provider's.
 */
function embeddingFromEnv(env: Environment): EmbeddingConfig {
  const rows = envRows('embedding');
  const provider = env[envName('embedding.provider')]?.trim() || 'openai-compatible';
  if (provider === 'none') return { provider: 'none' };
  const raw = rawFrom(env, rows.filter((r) => r.path !== 'embedding.provider')).embedding as Tree | undefined;
  const [baseUrl, model] = [envName('embedding.base_url'), envName('embedding.model')];
  if (provider === 'openai-compatible' && (!raw?.base_url || !raw.model)) {
    throw new UsageError(`set ${baseUrl} and ${model} (and DOCQA_EMBEDDING_API_KEY), or ${envName('embedding.provider')}=none for keyword-only search`);
  }
  const value = { ...raw, provider };
  const parsed = EmbeddingConfig.safeParse(value);
  if (!parsed.success) throw problem(parsed.error.issues, ['embedding'], value, rows);
  return parsed.data;
}

/**
 * The application layer's settings from DOCQA_* variables, through the settings table. Each command
 * names the parts it uses, so a bad variable is reported only by the commands it affects, as a usage
 * error naming it (`DOCQA_KEEP_TRACES must be at least 1`). `embedding` must be configured (or
 * DOCQA_EMBEDDING_PROVIDER=none); `embedding-if-set` falls back to none (a snapshot built with embeddings
 * then says what is missing).
 */
export function settingsFromEnv(env: Environment, parts: readonly SettingsPart[]): AppSettings {
  const s: AppSettings = structuredClone(DEFAULT_SETTINGS);
  for (const part of ['chat', 'ingest', 'run', 'retention'] as const) {
    if (!parts.includes(part)) continue;
    for (const group of GROUPS[part]) Object.assign(s, { [group]: groupFromEnv(env, group) });
  }
  if (parts.includes('embedding')) s.embedding = embeddingFromEnv(env);
  else if (parts.includes('embedding-if-set')) {
    try {
      s.embedding = embeddingFromEnv(env);
    } catch {
      s.embedding = { provider: 'none' };
    }
  }
  return s;
}
