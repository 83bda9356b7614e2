// The extension's settings, read through the settings table (src/app/settings-table/table.ts): which
// `docqa.*` key feeds which part of AppSettings, how a value read from the configuration is checked, and
// which keys make the index stale. It imports nothing of `vscode`, so that plain Node unit tests can
// check it against package.json without an extension host; src/extension.ts hands it
// `(key) => vscode.workspace.getConfiguration().get(key)`.
import { z } from 'zod';
import { AppSettings, DEFAULT_SETTINGS } from '../app/settings';
import { vscodeKeyOf } from '../app/settings-table/names';
import { type Tree, deleteAt, describeIssue, getAt, samePath, setAt } from '../app/settings-table/problems';
import { HOST_GROUP, vscodeRows } from '../app/settings-table/setting';
import { SETTINGS } from '../app/settings-table/table';

/** Reads one setting by its full key (`docqa.chat.model`); undefined when nothing is set. */
export type ConfigurationReader = (key: string) => unknown;

/** The globs applied to every source (recorded here; the walker does not use them yet). */
export interface SourceGlobs {
  include: string[];
  exclude: string[];
}

export interface SettingProblem {
  /** The setting at fault, e.g. `docqa.budgets.maxToolCalls`. */
  key: string;
  /** A sentence that starts with the key: `docqa.budgets.maxToolCalls must be at least 0`. */
  message: string;
}

export interface SettingsResult {
  /** Always usable: every invalid part replaced by its default. */
  settings: AppSettings;
  sources: SourceGlobs;
  /** One per setting that was not used as written; empty when everything was valid. */
  problems: SettingProblem[];
}

interface SettingSpec {
  key: string;
  /** Where the value goes in AppSettings. */
  path: readonly string[];
  /** What the setting holds when AppSettings has no such value (embedding fields while keyword-only). */
  unset?: unknown;
  /** Changing it makes the built index stale (different vectors, blocks or files). */
  rebuild?: boolean;
}

const VSCODE_ROWS = vscodeRows(SETTINGS);

export const SOURCE_GLOB_KEYS = { include: vscodeKeyOf('ingest.globs.include'), exclude: vscodeKeyOf('ingest.globs.exclude') } as const;
export const DEFAULT_SOURCE_GLOBS: SourceGlobs = { include: [], exclude: [] };

/**
 * Every `docqa.*` setting that feeds AppSettings, in the table's order; the source globs (read on their
 * own, below) and the settings only the extension reads (the OTLP endpoint) aside.
 */
export const SETTING_SPECS: readonly SettingSpec[] = VSCODE_ROWS.filter((r) => !r.path.startsWith(`${HOST_GROUP}.`) && r.vscode.key !== SOURCE_GLOB_KEYS.include && r.vscode.key !== SOURCE_GLOB_KEYS.exclude).map((r) => ({
  key: r.vscode.key,
  path: r.path.split('.'),
  ...('unset' in r ? { unset: r.unset } : {}),
  ...(r.rebuild ? { rebuild: true } : {}),
}));

/** Endpoint settings: only user (application-scoped) settings may say where requests and keys go. */
export const ENDPOINT_SETTING_KEYS: readonly string[] = VSCODE_ROWS.filter((r) => r.vscode.scope === 'application').map((r) => r.vscode.key);

/**
 * Settings whose change makes the built index stale: the embedding endpoint (other vectors), ingestion
 * and chunking (other blocks), and the source globs (other files). The extension says "a rebuild is
 * needed" when one of them changes.
 */
export const REBUILD_SETTING_KEYS: readonly string[] = VSCODE_ROWS.filter((r) => r.rebuild).map((r) => r.vscode.key);

/** For VS Code's `ConfigurationChangeEvent.affectsConfiguration`: does this change need a rebuild? */
export function rebuildNeeded(affects: (key: string) => boolean): boolean {
  return REBUILD_SETTING_KEYS.some((k) => affects(k));
}

function safeRead(read: ConfigurationReader, key: string): unknown {
  try {
    return read(key);
  } catch {
    return undefined;
  }
}

const isUnset = (v: unknown) => v === undefined || v === '';

/** The raw object AppSettings parses: only what is set, so the schema's defaults fill the rest. */
function rawFromConfiguration(read: ConfigurationReader): Tree {
  const raw: Tree = {};
  const providerKey = vscodeKeyOf('embedding.provider');
  const provider = safeRead(read, providerKey);
  for (const spec of SETTING_SPECS) {
    const value = safeRead(read, spec.key);
    if (spec.path[0] === 'embedding') {
      // Keyword-only has no endpoint: its base URL, model and dimensions are not read. An endpoint
      // named but left empty is reported as unset, not as a bad URL.
      if (provider === undefined || provider === 'none') continue;
      if (spec.key === providerKey) setAt(raw, spec.path, value);
      else setAt(raw, spec.path, isUnset(value) ? undefined : value);
      continue;
    }
    if (value !== undefined) setAt(raw, spec.path, value);
  }
  if (provider === 'none') raw.embedding = { provider: 'none' };
  return raw;
}

/** A schema-level message about a group (`target_tokens must not exceed max_tokens`) in setting keys. */
function groupProblem(groupPath: readonly PropertyKey[], message: string): SettingProblem {
  const inGroup = SETTING_SPECS.filter((s) => s.path.length === groupPath.length + 1 && samePath(s.path.slice(0, -1), groupPath));
  let text = message;
  let first: { at: number; key: string } | null = null;
  for (const s of inGroup) {
    const leaf = s.path[s.path.length - 1]!;
    const at = text.search(new RegExp(`\\b${leaf}\\b`));
    if (at < 0) continue;
    text = text.replace(new RegExp(`\\b${leaf}\\b`, 'g'), s.key);
    const keyAt = text.indexOf(s.key);
    if (!first || keyAt < first.at) first = { at: keyAt, key: s.key };
  }
  const key = first?.key ?? inGroup[0]?.key ?? `docqa.${groupPath.join('.')}`;
  return { key, message: text.startsWith(key) ? text : `${key}: ${text}` };
}

/**
 * The extension's settings as AppSettings, checked by AppSettings itself. A value the schema refuses
 * is reported by its key and replaced by its default (a required embedding field: the whole embedding
 * part, i.e. keyword-only); a rule between settings (block target ≤ block max) resets its group.
 * Never throws.
 */
export function settingsFromConfiguration(read: ConfigurationReader): SettingsResult {
  const problems: SettingProblem[] = [];
  const report = (p: SettingProblem) => {
    if (!problems.some((q) => q.key === p.key)) problems.push(p);
  };
  const raw = rawFromConfiguration(read);
  const reset: PropertyKey[][] = [];
  let settings: AppSettings | null = null;
  // Each round removes at least one part of `raw`, so this ends; the bound is only a guard.
  for (let round = 0; round < 64 && !settings; round++) {
    const parsed = AppSettings.safeParse(raw);
    if (parsed.success) {
      settings = parsed.data;
      break;
    }
    for (const issue of parsed.error.issues) {
      const path = issue.path;
      const spec = SETTING_SPECS.find((s) => samePath(s.path, path));
      if (spec && !reset.some((r) => samePath(r, path))) {
        const input = getAt(raw, spec.path);
        // Without its base URL or model the endpoint cannot be used: the embedding part falls back to keyword-only.
        const required = spec.path[0] === 'embedding' && spec.unset === '';
        const why = required && input === undefined ? 'must be set when docqa.embedding.provider is "openai-compatible"' : describeIssue(issue, input);
        report({ key: spec.key, message: `${spec.key} ${why}${required ? ' (search is keyword-only until it is fixed)' : ''}` });
        deleteAt(raw, spec.path as string[]);
        reset.push([...path]);
      } else {
        // A required leaf already reset, or a rule over a whole group: fall back to the group's default.
        const group = spec ? path.slice(0, -1) : path;
        if (!spec) report(groupProblem(path, issue.message));
        if (group.length === 0) {
          for (const k of Object.keys(raw)) delete raw[k];
        } else deleteAt(raw, group as string[]);
        reset.push([...group]);
      }
    }
  }
  // In the order of the settings editor, not of the schema.
  const rank = (key: string) => SETTING_SPECS.findIndex((s) => s.key === key);
  problems.sort((a, b) => rank(a.key) - rank(b.key));
  const sources = globsFromConfiguration(read, report);
  const usable = settings ?? DEFAULT_SETTINGS;
  return { settings: { ...usable, ingest: { ...usable.ingest, globs: { include: [...sources.include], exclude: [...sources.exclude] } } }, sources, problems };
}

const Globs = z.array(z.string().min(1));

function globsFromConfiguration(read: ConfigurationReader, report: (p: SettingProblem) => void): SourceGlobs {
  const out: SourceGlobs = { include: [...DEFAULT_SOURCE_GLOBS.include], exclude: [...DEFAULT_SOURCE_GLOBS.exclude] };
  for (const which of ['include', 'exclude'] as const) {
    const key = SOURCE_GLOB_KEYS[which];
    const value = safeRead(read, key);
    if (value === undefined) continue;
    const parsed = Globs.safeParse(value);
    if (parsed.success) out[which] = parsed.data;
    else {
      const issue = parsed.error.issues[0]!;
      const at = issue.path.length ? ` (entry ${String(issue.path[0])})` : '';
      report({ key, message: `${key}${at} ${issue.path.length ? (issue.code === 'too_small' ? 'must not be empty' : 'must be a glob string') : 'must be a list of glob strings'}` });
    }
  }
  return out;
}

/** What each `docqa.*` setting holds for these settings: package.json's defaults are this of DEFAULT_SETTINGS. */
export function configurationFromSettings(settings: AppSettings, sources: SourceGlobs = DEFAULT_SOURCE_GLOBS): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of SETTING_SPECS) {
    const v = getAt(settings, spec.path);
    out[spec.key] = v === undefined ? spec.unset : v;
  }
  out[SOURCE_GLOB_KEYS.include] = [...sources.include];
  out[SOURCE_GLOB_KEYS.exclude] = [...sources.exclude];
  out[OTLP_ENDPOINT_KEY] = '';
  out[CHAT_PROVIDER_KEY] = 'endpoint';
  return out;
}

/**
 * Where "Export to OTLP" sends a trace (an OpenTelemetry collector's traces endpoint). Not part of
 * AppSettings: only the extension's export action reads it, when it runs. Application-scoped like the
 * other endpoints: a workspace cannot send traces elsewhere.
 */
export const OTLP_ENDPOINT_KEY = vscodeKeyOf('host.otlp_endpoint');

/** The OTLP endpoint, or null when none is set; a value that is not an http(s) URL is reported and not used. */
export function otlpEndpointFromConfiguration(read: ConfigurationReader): { url: string | null; problem: SettingProblem | null } {
  const value = safeRead(read, OTLP_ENDPOINT_KEY);
  if (value === undefined || value === null || value === '') return { url: null, problem: null };
  const parsed = typeof value === 'string' ? z.url({ protocol: /^https?$/ }).safeParse(value.trim()) : null;
  if (parsed?.success) return { url: parsed.data, problem: null };
  return { url: null, problem: { key: OTLP_ENDPOINT_KEY, message: `${OTLP_ENDPOINT_KEY} must be an http(s) URL such as http://127.0.0.1:4318/v1/traces, not ${JSON.stringify(value)}` } };
}

/**
 * Which chat model answers in VS Code: DocQA's endpoint, or a VS Code language model (src/vscode/lm-models.ts).
 * Not part of AppSettings: the extension lends the chosen model to each question (HostChatModel).
 */
export const CHAT_PROVIDER_KEY = vscodeKeyOf('host.chat_provider');

/** The chat provider; anything but "vscode" is DocQA's own endpoint (the default). */
export function chatProviderOf(value: unknown): 'endpoint' | 'vscode' {
  return value === 'vscode' ? 'vscode' : 'endpoint';
}
