import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { AppSettings, DEFAULT_SETTINGS } from '../../src/app/settings';
import { type SettingsPart, settingsFromEnv } from '../../src/app/settings-table/from-env';
import { getAt } from '../../src/app/settings-table/problems';
import { schemaInfo } from '../../src/app/settings-table/schema-info';
import { HOST_GROUP, type Setting } from '../../src/app/settings-table/setting';
import { SETTINGS } from '../../src/app/settings-table/table';
import { ENV_SETTING_NAMES } from '../../src/common/provider-failure';
import { UsageError } from '../../src/common/errors';
import { EmbeddingConfig } from '../../src/index/embed/embedding-client';

const ROOT = path.join(import.meta.dirname, '..', '..');
const ROWS: readonly Setting[] = SETTINGS;
const ALL_PARTS: SettingsPart[] = ['chat', 'ingest', 'run', 'retention'];

/** The schema AppSettings holds at a dotted path (through defaults and prefaults), or undefined. */
function schemaAt(root: z.ZodType, dotted: string): z.ZodType | undefined {
  let s: z.ZodType | undefined = root;
  for (const part of dotted.split('.')) {
    for (;;) {
      const def: { type: string; innerType?: z.ZodType } = (s as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
      if (def.type === 'default' || def.type === 'prefault' || def.type === 'optional') s = def.innerType;
      else break;
    }
    s = (s as unknown as { shape?: Record<string, z.ZodType> }).shape?.[part];
    if (!s) return undefined;
  }
  return s;
}

const envRows = ROWS.filter((r) => r.env && !r.path.startsWith('embedding.'));

describe('the settings table', () => {
  it('gives each setting one row: variables and keys unique, words in English and Chinese, every enum value described', () => {
    const envs = ROWS.flatMap((r) => (r.env ? [r.env] : []));
    const keys = ROWS.flatMap((r) => (r.vscode ? [r.vscode.key] : []));
    assert.equal(new Set(envs).size, envs.length);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(new Set(ROWS.map((r) => r.path)).size, ROWS.length);
    for (const r of ROWS) {
      assert.ok(r.env || r.vscode, `${r.path} is offered by a host`);
      assert.ok(r.description.en.trim() && r.description.zh.trim() && r.description.en !== r.description.zh, `${r.path} is described in both languages`);
      const values = schemaInfo(r.schema).values;
      if (r.values) assert.deepEqual(Object.keys(r.values).sort(), [...(values ?? [])].sort(), `${r.path}: words for exactly its values`);
    }
  });

  it('holds the very schema AppSettings (or the component it points at) validates with, so type and default are declared once', () => {
    const remote = EmbeddingConfig.options[0].shape as Record<string, z.ZodType>;
    for (const r of ROWS) {
      if (r.path.startsWith(`${HOST_GROUP}.`)) continue;
      if (r.path.startsWith('embedding.')) {
        const leaf = r.path.slice('embedding.'.length);
        if (leaf === 'provider') assert.deepEqual([...schemaInfo(r.schema).values!], EmbeddingConfig.options.map((o) => o.shape.provider.value));
        else assert.equal(r.schema, remote[leaf], r.path);
        continue;
      }
      assert.equal(schemaAt(AppSettings, r.path), r.schema, `AppSettings.${r.path} is the row's schema`);
    }
  });

  it('names the same variables as the advice in provider errors', () => {
    const env = (p: string) => ROWS.find((r) => r.path === p)!.env;
    assert.deepEqual([ENV_SETTING_NAMES.chat.base_url, ENV_SETTING_NAMES.chat.model, ENV_SETTING_NAMES.embedding.base_url, ENV_SETTING_NAMES.embedding.model], [env('chat.base_url'), env('chat.model'), env('embedding.base_url'), env('embedding.model')]);
  });

  it('is what docs/cli.md lists: every variable of the table is documented', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    for (const r of ROWS) if (r.env) assert.ok(doc.includes(`| \`${r.env}\` |`), `docs/cli.md lists ${r.env}`);
  });
});

describe('settingsFromEnv: the CLI reads the environment through the table', () => {
  it('with no variable set, gives the defaults (embedding keyword-only when asked only if set)', () => {
    assert.deepEqual(settingsFromEnv({}, [...ALL_PARTS, 'embedding-if-set']), DEFAULT_SETTINGS);
  });

  it('puts each variable where its row says, typed', () => {
    for (const r of envRows) {
      const info = schemaInfo(r.schema);
      const base = getAt(DEFAULT_SETTINGS, r.path.split('.'));
      const value = info.kind === 'boolean' ? !base : info.kind === 'number' ? (typeof base === 'number' ? base + 1 : (info.minimum ?? 0) + 1) : info.kind === 'enum' ? info.values!.find((v) => v !== base)! : r.path === 'chat.base_url' ? 'http://127.0.0.1:9/v1' : 'another-model';
      // Block sizes must stay ordered (min ≤ target ≤ max): move the others out of the way.
      const room = r.path.startsWith('ingest.chunking.') ? { DOCQA_BLOCK_TARGET_TOKENS: '300', DOCQA_BLOCK_MAX_TOKENS: '600', DOCQA_BLOCK_MIN_TOKENS: '40', [r.env!]: String(value) } : { [r.env!]: String(value) };
      const s = settingsFromEnv(room, ALL_PARTS);
      assert.deepEqual(getAt(s, r.path.split('.')), value, `${r.env} → ${r.path}`);
    }
  });

  it('refuses text where a number goes, and a value below the minimum, naming the variable', () => {
    for (const r of envRows) {
      const info = schemaInfo(r.schema);
      if (info.kind !== 'number') continue;
      assert.throws(() => settingsFromEnv({ [r.env!]: 'lots' }, ALL_PARTS), (e: unknown) => e instanceof UsageError && e.message === `${r.env} must be ${info.integer ? 'a whole number' : 'a number'}, not "lots"`, r.env);
      if (info.minimum === null) continue;
      // A whole number above 0 is worded as zod checks it: "greater than 0".
      const below = [`${r.env} must be at least ${info.minimum}`, `${r.env} must be greater than ${info.minimum - 1}`];
      assert.throws(() => settingsFromEnv({ [r.env!]: String(info.minimum! - 1) }, ALL_PARTS), (e: unknown) => e instanceof UsageError && below.includes(e.message), r.env);
    }
    assert.throws(() => settingsFromEnv({ DOCQA_TRACE: 'everything' }, ['run']), { message: 'DOCQA_TRACE must be one of "metadata", "full", not "everything"' });
  });

  it('a switch is true or false, or 1 or 0 as a shell sets it (DOCQA_INGEST_OCR=1); anything else is refused, naming the variable', () => {
    for (const [text, on] of [['1', true], ['true', true], ['0', false], ['false', false]] as const) assert.equal(settingsFromEnv({ DOCQA_INGEST_OCR: text }, ['ingest']).ingest.ocr, on, text);
    assert.equal(settingsFromEnv({}, ['ingest']).ingest.ocr, false, 'off by default');
    assert.throws(() => settingsFromEnv({ DOCQA_INGEST_OCR: 'yes' }, ['ingest']), { message: 'DOCQA_INGEST_OCR must be true or false (or 1 or 0), not "yes"' });
  });

  it('reads only the parts a command uses: a bad variable of another part is not its problem', () => {
    assert.equal(settingsFromEnv({ DOCQA_MAX_TOOL_CALLS: 'lots', DOCQA_BLOCK_MAX_TOKENS: '600' }, ['ingest']).ingest.chunking.max_tokens, 600);
  });

  it('words a rule between variables with the rule and the variables that set it', () => {
    assert.throws(() => settingsFromEnv({ DOCQA_BLOCK_TARGET_TOKENS: '900', DOCQA_BLOCK_MAX_TOKENS: '100' }, ['ingest']), { message: 'target_tokens must not exceed max_tokens (DOCQA_BLOCK_TARGET_TOKENS, DOCQA_BLOCK_MAX_TOKENS, DOCQA_BLOCK_MIN_TOKENS)' });
  });

  it('requires an embedding endpoint or none when a command needs embeddings, and falls back to none when only if set', () => {
    assert.throws(() => settingsFromEnv({}, ['embedding']), /^UsageError: set DOCQA_EMBEDDING_BASE_URL and DOCQA_EMBEDDING_MODEL/);
    assert.deepEqual(settingsFromEnv({ DOCQA_EMBEDDING_PROVIDER: 'none' }, ['embedding']).embedding, { provider: 'none' });
    const remote = settingsFromEnv({ DOCQA_EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1', DOCQA_EMBEDDING_MODEL: 'e', DOCQA_EMBEDDING_DIMENSIONS: '32' }, ['embedding']).embedding;
    assert.deepEqual(remote.provider === 'openai-compatible' && [remote.base_url, remote.model, remote.dimensions], ['http://127.0.0.1:9/v1', 'e', 32]);
    assert.throws(() => settingsFromEnv({ DOCQA_EMBEDDING_BASE_URL: 'nowhere', DOCQA_EMBEDDING_MODEL: 'e' }, ['embedding']), { message: 'DOCQA_EMBEDDING_BASE_URL must be a URL (https://…), not "nowhere"' });
    assert.throws(() => settingsFromEnv({ DOCQA_EMBEDDING_PROVIDER: 'ollama', DOCQA_EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1', DOCQA_EMBEDDING_MODEL: 'e' }, ['embedding']), /DOCQA_EMBEDDING_PROVIDER must be one of "openai-compatible", "none", not "ollama"/);
    assert.deepEqual(settingsFromEnv({ DOCQA_EMBEDDING_BASE_URL: 'nowhere' }, ['embedding-if-set']).embedding, { provider: 'none' });
  });
});
