import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../../src/app/settings';
import {
  DEFAULT_SOURCE_GLOBS,
  ENDPOINT_SETTING_KEYS,
  OTLP_ENDPOINT_KEY,
  CHAT_PROVIDER_KEY,
  chatProviderOf,
  REBUILD_SETTING_KEYS,
  SETTING_SPECS,
  SOURCE_GLOB_KEYS,
  configurationFromSettings,
  otlpEndpointFromConfiguration,
  rebuildNeeded,
  settingsFromConfiguration,
} from '../../src/vscode/settings-model';

const ROOT = path.join(import.meta.dirname, '..', '..');
const readJson = (name: string) => JSON.parse(fs.readFileSync(path.join(ROOT, name), 'utf8'));
const pkg = readJson('package.json');
const properties: Record<string, Record<string, unknown>> = pkg.contributes.configuration.properties;
const docqaKeys = Object.keys(properties).filter((k) => k.startsWith('docqa.'));
const nls: Record<string, string> = readJson('package.nls.json');
const nlsZh: Record<string, string> = readJson('package.nls.zh-cn.json');

const none = () => undefined;
/** What VS Code hands the extension when the user has set nothing: the contributed defaults. */
const contributedDefaults = (key: string) => properties[key]?.default;
const withValues =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    key in values ? values[key] : contributedDefaults(key);

describe('package.json settings and AppSettings', () => {
  it('contributes a DocQA configuration in which every docqa.* setting has a description, default and type', () => {
    assert.equal(pkg.contributes.configuration.title, 'DocQA');
    assert.ok(docqaKeys.length > 0);
    for (const key of docqaKeys) {
      const p = properties[key]!;
      assert.ok(typeof p.description === 'string' && /^%.+%$/.test(p.description), `${key} has an nls description`);
      assert.ok('default' in p, `${key} has a default`);
      assert.ok(p.type !== undefined, `${key} has a type`);
    }
  });

  it('lists exactly the settings the model reads, no more and no fewer', () => {
    const modelled = [...SETTING_SPECS.map((s) => s.key), SOURCE_GLOB_KEYS.include, SOURCE_GLOB_KEYS.exclude, OTLP_ENDPOINT_KEY, CHAT_PROVIDER_KEY];
    assert.deepEqual([...docqaKeys].sort(), [...modelled].sort());
  });

  it('has package.json defaults equal to AppSettings defaults, both ways', () => {
    const empty = settingsFromConfiguration(none);
    assert.deepEqual(empty.problems, []);
    assert.deepEqual(empty.settings, DEFAULT_SETTINGS);
    assert.deepEqual(empty.sources, DEFAULT_SOURCE_GLOBS);
    const expected = configurationFromSettings(empty.settings, empty.sources);
    for (const key of docqaKeys) assert.deepEqual(properties[key]!.default, expected[key], `default of ${key}`);
    // And what VS Code really returns when nothing is set (the defaults) gives DEFAULT_SETTINGS again.
    const fromDefaults = settingsFromConfiguration(contributedDefaults);
    assert.deepEqual(fromDefaults.problems, []);
    assert.deepEqual(fromDefaults.settings, DEFAULT_SETTINGS);
  });

  it('declares enums and bounds that match the schema', () => {
    assert.deepEqual(properties['docqa.chat.thinking']!.enum, ['enabled', 'disabled']);
    assert.deepEqual(properties['docqa.embedding.provider']!.enum, ['openai-compatible', 'none']);
    assert.deepEqual(properties['docqa.trace.mode']!.enum, ['metadata', 'full']);
    for (const key of docqaKeys) {
      const p = properties[key]!;
      if (Array.isArray(p.enum) && p.enumDescriptions) assert.equal((p.enumDescriptions as unknown[]).length, p.enum.length, `${key} enumDescriptions`);
      if (typeof p.minimum !== 'number') continue;
      // One below the minimum is refused by the schema, the minimum itself is accepted.
      const step = p.type === 'integer' || (Array.isArray(p.type) && p.type.includes('integer')) ? 1 : 0.5;
      const low = withValues({ [key]: p.minimum - step, 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': 'http://127.0.0.1:1/v1', 'docqa.embedding.model': 'm' });
      assert.ok(
        settingsFromConfiguration(low).problems.some((q) => q.key === key),
        `${key} below its minimum is reported`,
      );
    }
  });

  it('scopes endpoint settings to the application or machine, never the workspace', () => {
    for (const key of ['docqa.chat.baseUrl', 'docqa.chat.model', 'docqa.embedding.provider', 'docqa.embedding.baseUrl', 'docqa.embedding.model']) {
      assert.ok(ENDPOINT_SETTING_KEYS.includes(key));
    }
    for (const key of ENDPOINT_SETTING_KEYS) assert.ok(['application', 'machine'].includes(properties[key]!.scope as string), `${key} scope`);
  });

  it('in Restricted Mode ignores every workspace value of a DocQA setting (endpoints are application-scoped anyway)', () => {
    const caps = pkg.capabilities.untrustedWorkspaces as { supported: string; restrictedConfigurations: string[] };
    assert.equal(caps.supported, 'limited');
    const workspaceSettable = Object.entries(properties).filter(([, v]) => v.scope !== 'application' && v.scope !== 'machine').map(([k]) => k);
    assert.deepEqual([...caps.restrictedConfigurations].sort(), workspaceSettable.sort());
    assert.ok(workspaceSettable.includes('docqa.sources.exclude') && !workspaceSettable.includes('docqa.chat.baseUrl'));
  });

  it('offers the chat provider as one user setting: DocQA\'s endpoint by default, or a VS Code language model', () => {
    const p = properties[CHAT_PROVIDER_KEY]!;
    assert.deepEqual([p.scope, p.enum, p.default], ['application', ['endpoint', 'vscode'], 'endpoint']);
    assert.deepEqual([chatProviderOf('vscode'), chatProviderOf('endpoint'), chatProviderOf(undefined), chatProviderOf('copilot')], ['vscode', 'endpoint', 'endpoint', 'endpoint']);
  });

  it('reads the OTLP endpoint as a user setting: unset is "not configured", a URL is used, anything else is reported and not used', () => {
    assert.equal(properties[OTLP_ENDPOINT_KEY]!.scope, 'application');
    assert.ok(ENDPOINT_SETTING_KEYS.includes(OTLP_ENDPOINT_KEY));
    assert.deepEqual(otlpEndpointFromConfiguration(none), { url: null, problem: null });
    assert.deepEqual(otlpEndpointFromConfiguration(contributedDefaults), { url: null, problem: null });
    assert.deepEqual(otlpEndpointFromConfiguration(withValues({ [OTLP_ENDPOINT_KEY]: ' http://127.0.0.1:4318/v1/traces ' })), { url: 'http://127.0.0.1:4318/v1/traces', problem: null });
    for (const bad of ['127.0.0.1:4318', 'ftp://collector/v1/traces', 42]) {
      const r = otlpEndpointFromConfiguration(withValues({ [OTLP_ENDPOINT_KEY]: bad }));
      assert.equal(r.url, null, String(bad));
      assert.equal(r.problem?.key, OTLP_ENDPOINT_KEY);
      assert.match(r.problem!.message, /^docqa\.trace\.otlpEndpoint must be an http\(s\) URL/);
    }
    const throwing = otlpEndpointFromConfiguration(() => {
      throw new Error('configuration unavailable');
    });
    assert.deepEqual(throwing, { url: null, problem: null });
  });

  it('holds no API keys in settings', () => {
    for (const key of docqaKeys) assert.doesNotMatch(key, /apiKey|secret|password|(^|\.)key$/i, key);
  });
});

describe('settingsFromConfiguration', () => {
  it('maps set values onto AppSettings', () => {
    const r = settingsFromConfiguration(
      withValues({
        'docqa.chat.model': 'deepseek-v4-pro',
        'docqa.chat.thinking': 'enabled',
        'docqa.embedding.provider': 'openai-compatible',
        'docqa.embedding.baseUrl': 'https://api.example.com/v1',
        'docqa.embedding.model': 'text-embedding-3-small',
        'docqa.embedding.dimensions': 256,
        'docqa.budgets.maxToolCalls': 3,
        'docqa.retention.keepDays': 7,
        'docqa.ingest.blockTargetTokens': 128,
        'docqa.sources.exclude': ['drafts/**'],
      }),
    );
    assert.deepEqual(r.problems, []);
    assert.equal(r.settings.chat.model, 'deepseek-v4-pro');
    assert.equal(r.settings.chat.thinking, 'enabled');
    assert.deepEqual(r.settings.embedding, { ...r.settings.embedding, provider: 'openai-compatible', base_url: 'https://api.example.com/v1', model: 'text-embedding-3-small', dimensions: 256 });
    assert.equal(r.settings.run.budgets.max_tool_calls, 3);
    assert.equal(r.settings.run.budgets.max_context_tokens, DEFAULT_SETTINGS.run.budgets.max_context_tokens);
    assert.equal(r.settings.retention.keep_days, 7);
    assert.equal(r.settings.ingest.chunking.target_tokens, 128);
    assert.deepEqual(r.sources, { include: [], exclude: ['drafts/**'] });
    assert.deepEqual(r.settings.ingest.globs, { include: [], exclude: ['drafts/**'] }, 'the globs reach the walker through the ingest options');
  });

  it('reports a negative budget by key and falls back to its default only', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.budgets.maxToolCalls': -1, 'docqa.budgets.maxRequestTokens': 1000 }));
    assert.deepEqual(r.problems, [{ key: 'docqa.budgets.maxToolCalls', message: 'docqa.budgets.maxToolCalls must be at least 0' }]);
    assert.equal(r.settings.run.budgets.max_tool_calls, DEFAULT_SETTINGS.run.budgets.max_tool_calls);
    assert.equal(r.settings.run.budgets.max_request_tokens, 1000);
  });

  it('reports a wrong enum by key', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.trace.mode': 'everything', 'docqa.chat.thinking': 'maybe' }));
    assert.deepEqual(
      r.problems.map((p) => p.key),
      ['docqa.chat.thinking', 'docqa.trace.mode'],
    );
    assert.match(r.problems[1]!.message, /^docqa\.trace\.mode must be one of "metadata", "full", not "everything"$/);
    assert.equal(r.settings.trace.mode, 'metadata');
    assert.equal(r.settings.chat.thinking, 'disabled');
  });

  it('reports a wrong embedding provider and stays keyword-only', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.embedding.provider': 'ollama', 'docqa.embedding.baseUrl': 'http://127.0.0.1:11434/v1', 'docqa.embedding.model': 'm' }));
    assert.deepEqual(r.problems.map((p) => p.key), ['docqa.embedding.provider']);
    assert.match(r.problems[0]!.message, /must be one of "openai-compatible", "none", not "ollama"/);
    assert.deepEqual(r.settings.embedding, { provider: 'none' });
  });

  it('reports a string for a number and a fraction for a whole number', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.budgets.maxContextTokens': 'lots', 'docqa.trace.keep': 2.5, 'docqa.question.maxChars': null }));
    assert.deepEqual(r.problems.map((p) => p.key), ['docqa.budgets.maxContextTokens', 'docqa.question.maxChars', 'docqa.trace.keep']);
    assert.equal(r.problems[0]!.message, 'docqa.budgets.maxContextTokens must be a number, not "lots"');
    assert.equal(r.problems[2]!.message, 'docqa.trace.keep must be a whole number');
    assert.equal(r.settings.run.budgets.max_context_tokens, DEFAULT_SETTINGS.run.budgets.max_context_tokens);
    assert.equal(r.settings.run.max_question_chars, DEFAULT_SETTINGS.run.max_question_chars);
    assert.equal(r.settings.trace.keep, DEFAULT_SETTINGS.trace.keep);
  });

  it('reports a bad chat URL and an empty model, and keeps the defaults', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.chat.baseUrl': 'not a url', 'docqa.chat.model': '' }));
    assert.deepEqual(r.problems.map((p) => p.message), ['docqa.chat.baseUrl must be a URL (https://…), not "not a url"', 'docqa.chat.model must not be empty']);
    assert.deepEqual(r.settings.chat, DEFAULT_SETTINGS.chat);
  });

  it('reports an embedding endpoint without URL or model and falls back to keyword-only', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.model': 'm' }));
    assert.deepEqual(r.problems.map((p) => p.key), ['docqa.embedding.baseUrl']);
    assert.match(r.problems[0]!.message, /^docqa\.embedding\.baseUrl must be set when docqa\.embedding\.provider is "openai-compatible" \(search is keyword-only/);
    assert.deepEqual(r.settings.embedding, { provider: 'none' });
  });

  it('keeps the embedding endpoint when only the dimensions are wrong', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': 'https://e.example/v1', 'docqa.embedding.model': 'm', 'docqa.embedding.dimensions': 0 }));
    assert.deepEqual(r.problems, [{ key: 'docqa.embedding.dimensions', message: 'docqa.embedding.dimensions must be greater than 0' }]);
    assert.equal(r.settings.embedding.provider, 'openai-compatible');
    assert.ok(r.settings.embedding.provider === 'openai-compatible' && r.settings.embedding.dimensions === null);
  });

  it('ignores the endpoint fields while keyword-only', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.embedding.baseUrl': 'nonsense', 'docqa.embedding.dimensions': -3 }));
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.settings.embedding, { provider: 'none' });
  });

  it('reports block sizes that contradict each other in setting keys and resets chunking', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.ingest.blockTargetTokens': 600, 'docqa.ingest.maxFileBytes': 1024 }));
    assert.deepEqual(r.problems, [{ key: 'docqa.ingest.blockTargetTokens', message: 'docqa.ingest.blockTargetTokens must not exceed docqa.ingest.blockMaxTokens' }]);
    assert.deepEqual(r.settings.ingest.chunking, DEFAULT_SETTINGS.ingest.chunking);
    assert.equal(r.settings.ingest.max_file_bytes, 1024);
  });

  it('reports globs that are not lists of strings', () => {
    const r = settingsFromConfiguration(withValues({ 'docqa.sources.include': '**/*.md', 'docqa.sources.exclude': ['ok/**', 3] }));
    assert.deepEqual(r.problems.map((p) => p.key), ['docqa.sources.include', 'docqa.sources.exclude']);
    assert.deepEqual(r.sources, DEFAULT_SOURCE_GLOBS);
  });

  it('never throws, whatever the reader does', () => {
    const r = settingsFromConfiguration(() => {
      throw new Error('configuration unavailable');
    });
    assert.deepEqual(r.settings, DEFAULT_SETTINGS);
    const odd = settingsFromConfiguration(() => ({ nested: true }));
    assert.ok(odd.problems.length > 0);
    assert.deepEqual(odd.settings, DEFAULT_SETTINGS);
  });
});

describe('package.nls', () => {
  it('has the same keys in English and Simplified Chinese, none empty', () => {
    assert.deepEqual(Object.keys(nlsZh).sort(), Object.keys(nls).sort());
    for (const [name, table] of [
      ['package.nls.json', nls],
      ['package.nls.zh-cn.json', nlsZh],
    ] as const) {
      for (const [k, v] of Object.entries(table)) assert.ok(typeof v === 'string' && v.trim() !== '', `${name}: ${k} is empty`);
    }
    for (const k of Object.keys(nls)) {
      if (k !== 'displayName') assert.notEqual(nlsZh[k], nls[k], `${k} is translated`);
    }
  });

  it('every word package.json shows a person is a %key% (commands, views, walkthrough, the chat participant, the language model tools’ names and descriptions), so Chinese VS Code shows it in Chinese', () => {
    type Named = Record<string, unknown>;
    const c = pkg.contributes as { commands: Named[]; viewsContainers: { activitybar: Named[] }; views: Record<string, Named[]>; viewsWelcome: Named[]; customEditors: Named[]; chatParticipants: Array<Named & { commands: Named[] }>; languageModelTools: Named[]; walkthroughs: Array<Named & { steps: Named[] }> };
    const shown: Array<[string, unknown]> = [
      ...c.commands.map((x) => [`command ${x.command} title`, x.title] as [string, unknown]),
      ...c.viewsContainers.activitybar.map((x) => [`view container ${x.id}`, x.title] as [string, unknown]),
      ...Object.values(c.views).flat().map((x) => [`view ${x.id}`, x.name] as [string, unknown]),
      ...c.viewsWelcome.map((x) => [`welcome of ${x.view}`, x.contents] as [string, unknown]),
      ...c.customEditors.map((x) => [`editor ${x.viewType}`, x.displayName] as [string, unknown]),
      ...c.chatParticipants.flatMap((x) => [[`participant ${x.id}`, x.description] as [string, unknown], ...x.commands.map((y) => [`participant command /${y.name}`, y.description] as [string, unknown])]),
      ...c.languageModelTools.flatMap((x) => [[`tool ${x.name} displayName`, x.displayName], [`tool ${x.name} userDescription`, x.userDescription]] as Array<[string, unknown]>),
      ...c.walkthroughs.flatMap((w) => [[`walkthrough ${w.id}`, w.title], [`walkthrough ${w.id}`, w.description], ...w.steps.flatMap((s) => [[`step ${s.id}`, s.title], [`step ${s.id}`, s.description]])] as Array<[string, unknown]>),
    ];
    assert.ok(c.languageModelTools.length === 5 && shown.length > 40, 'the scan found the contributions');
    const bare = shown.filter(([, v]) => !(typeof v === 'string' && /^%[^%]+%$/.test(v))).map(([where, v]) => `${where}: ${JSON.stringify(v)}`);
    assert.deepEqual(bare, []);
    // The tools' words in Chinese are Chinese (the check above only proves they are keys).
    for (const t of c.languageModelTools) for (const f of ['displayName', 'userDescription']) assert.match(nlsZh[String(t[f]).slice(1, -1)]!, /[\u3400-\u9fff]/u, `${String(t.name)} ${f}`);
  });

  it('defines every %key% that package.json uses, in both files, and no unused key', () => {
    const used = new Set([...JSON.stringify(pkg).matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!));
    for (const k of ['displayName', 'description', 'command.inspectDocument.title']) assert.ok(used.has(k), `package.json uses %${k}%`);
    for (const k of used) {
      assert.ok(k in nls, `package.nls.json defines ${k}`);
      assert.ok(k in nlsZh, `package.nls.zh-cn.json defines ${k}`);
    }
    assert.deepEqual(Object.keys(nls).filter((k) => !used.has(k)), []);
  });
});

describe('rebuild-needed settings', () => {
  it('covers every embedding and ingestion setting and the source globs, and no chat or budget setting', () => {
    for (const key of docqaKeys) {
      const stale = key.startsWith('docqa.embedding.') || key.startsWith('docqa.ingest.') || key.startsWith('docqa.sources.');
      assert.equal(REBUILD_SETTING_KEYS.includes(key), stale, key);
    }
    assert.ok(REBUILD_SETTING_KEYS.includes('docqa.ingest.blockTargetTokens'));
    assert.ok(REBUILD_SETTING_KEYS.includes('docqa.embedding.model'));
  });

  it('answers a VS Code change event', () => {
    // affectsConfiguration is true for a changed key and for each of its parent sections.
    const affects = (changed: string) => (section: string) => changed === section || changed.startsWith(`${section}.`);
    assert.equal(rebuildNeeded(affects('docqa.embedding.dimensions')), true);
    assert.equal(rebuildNeeded(affects('docqa.ingest.blockMaxTokens')), true);
    assert.equal(rebuildNeeded(affects('docqa.chat.model')), false);
    assert.equal(rebuildNeeded(affects('docqa.budgets.maxToolCalls')), false);
  });
});
